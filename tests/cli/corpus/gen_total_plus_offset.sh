$TL inspect bad/gen_total_plus_offset.json
