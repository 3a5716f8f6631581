$TL inspect bad/gen_count_near_2_64.json
