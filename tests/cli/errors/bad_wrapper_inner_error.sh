$TL inspect bad/wrapper_inner_error.json
