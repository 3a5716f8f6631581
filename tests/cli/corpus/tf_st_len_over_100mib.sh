$TL inspect bad/tf_st_len_over_100mib.safetensors; echo exit $?
