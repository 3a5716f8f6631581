for b in 438625881 292417254 877251761; do $TL offset bad/dense_owners_5.json --byte $b | sed -n "1p;\$p"; done
