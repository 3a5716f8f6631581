$TL inspect bad/layout_not_permutation.json
