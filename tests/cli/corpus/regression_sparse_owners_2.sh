$TL offset bad/sparse_owners_2.json --byte 2049840961 | wc -l; $TL offset bad/sparse_owners_2.json --byte 2049840961 | sed -n "1p;\$p"; $TL offset bad/sparse_owners_2.json --byte 1
