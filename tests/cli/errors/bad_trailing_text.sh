$TL inspect bad/trailing_text.json
