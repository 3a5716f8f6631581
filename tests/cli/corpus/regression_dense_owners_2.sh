for b in 485182601 242591301 161727534; do $TL offset bad/dense_owners_2.json --byte $b | sed -n "1p;\$p"; done
