$TL inspect no-such.json
