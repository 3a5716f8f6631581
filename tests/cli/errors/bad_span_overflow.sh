$TL inspect bad/span_overflow.json
