$TL inspect bad/gen_flags_object.json
