$TL inspect bad/tf_npy_v3_header_over_100mib.npy; echo exit $?
