$TL inspect bad/tf_st_dtype_bool.safetensors; echo exit $?
