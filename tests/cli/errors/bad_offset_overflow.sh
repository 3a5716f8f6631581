$TL inspect bad/offset_overflow.json
