$TL inspect --json bad/overlap_slow.json | grep -E "overlapping|status"
$TL offset bad/overlap_slow.json --byte 2715330 | sed -n "1p;\$p"
