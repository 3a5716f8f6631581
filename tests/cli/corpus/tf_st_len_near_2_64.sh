$TL inspect bad/tf_st_len_near_2_64.safetensors; echo exit $?
