$TL inspect bad/tf_st_dtype_f4.safetensors; echo exit $?
