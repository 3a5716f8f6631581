$TL inspect bad/gen_span_bytes_near_2_64.json
