$TL offset bad/dense_owners.json --byte 2049840961 | sed -n "1p;2p;1000p;1001p"; $TL offset --json bad/dense_owners.json --byte 7 | tr -d "\t\n"; echo
