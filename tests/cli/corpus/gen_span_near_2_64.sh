$TL inspect bad/gen_span_near_2_64.json
