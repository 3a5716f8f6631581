$TL inspect bad/total_negative.json
