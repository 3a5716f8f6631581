$TL inspect bad/tf_st_dtype_f8_e5m2.safetensors; echo exit $?
