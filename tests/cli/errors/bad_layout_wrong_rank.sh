$TL inspect bad/layout_wrong_rank.json
