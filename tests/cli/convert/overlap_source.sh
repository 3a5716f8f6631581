$TL convert examples/overlap.json examples/overlap.bin -o out.bin --to WH --out-desc out.json && $TL dump out.json out.bin && cat out.json
