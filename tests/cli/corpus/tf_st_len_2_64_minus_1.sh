$TL inspect bad/tf_st_len_2_64_minus_1.safetensors; echo exit $?
