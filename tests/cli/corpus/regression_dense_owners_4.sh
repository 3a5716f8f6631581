for b in 167531017 111687345 67012407; do $TL offset bad/dense_owners_4.json --byte $b | sed -n "1p;\$p"; done
$TL offset bad/dense_owners_4.json --byte 67012407 --json | head -c 120; echo
