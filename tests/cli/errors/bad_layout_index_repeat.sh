$TL inspect bad/layout_index_repeat.json
