$TL inspect bad/layout_rank6_letters.json
