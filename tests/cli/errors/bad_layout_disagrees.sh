$TL inspect bad/layout_disagrees.json
