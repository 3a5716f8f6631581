$TL inspect bad/gen_whitespace_2mib.json
