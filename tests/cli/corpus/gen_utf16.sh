$TL inspect bad/gen_utf16.json
