$TL inspect --json bad/overlap_slow_2.json | grep -E "overlapping|status"
$TL offset bad/overlap_slow_2.json --byte 609 | sed -n "1p;\$p"
