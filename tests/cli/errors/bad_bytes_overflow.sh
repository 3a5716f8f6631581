$TL inspect bad/bytes_overflow.json
