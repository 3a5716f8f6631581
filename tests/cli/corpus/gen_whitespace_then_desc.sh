$TL inspect bad/gen_whitespace_then_desc.json
