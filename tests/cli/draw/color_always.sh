# --color always: 24-bit colours by the row index, padding dimmed, and a colour line
$TL draw --color always examples/padded.json
