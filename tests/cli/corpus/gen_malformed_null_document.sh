$TL inspect bad/gen_malformed_null_document.json
