# no calibration cached yet: the built-in rules, and how to measure
$TL calibrate --show | head -n 1 | sed 's|/[^ ]*/tensorlayout/[^:]*\.txt|CACHE|'
