# the search for a byte's owners stops at --search-steps: the first owners
# it found and a note, or "unknown" when it found none; exit 1 either way
$TL offset bad/dense_owners_5.json --byte 438625881 --search-steps 300000 | sed -n '1p;$p'
$TL offset bad/dense_owners_5.json --byte 438625881 --search-steps 1000
echo "exit $?"
$TL offset bad/dense_owners_5.json --byte 438625881 --search-steps 1000 --json
echo "exit $?"
# with the default bound it answers
$TL offset bad/dense_owners_5.json --byte 438625881 | sed -n '$p'
