$TL inspect bad/deep_nesting.json
