# -o FILE.svg writes an SVG file (in place only when whole), --format svg to standard output
$TL draw -o out.svg examples/padded.json && head -c 38 out.svg && echo && tail -n 1 out.svg
$TL draw --format svg examples/padded.json | cmp - out.svg && echo same
$TL draw --format SVG -o pic.txt examples/padded.json && head -c 5 pic.txt && echo
