$TL inspect bad/truncated.json
