$TL inspect bad/tf_npy_v2_header_claims_1000.npy; echo exit $?
