$TL inspect bad/gen_malformed_two_objects.json
