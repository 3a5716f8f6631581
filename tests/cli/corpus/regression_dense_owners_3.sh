for b in 33939131840 16969565920 11313043947; do $TL offset bad/dense_owners_3.json --byte $b | sed -n "1p;\$p"; done
