$TL convert examples/padded.json examples/padded.bin --to HW --to-type BFLOAT16 -o b.bin --out-desc b.json && $TL dump b.json b.bin && $TL inspect b.json | grep -E "^(dataType|problems)"
