$TL inspect bad/gen_deep_objects.json
