$TL inspect bad/tf_st_dtype_f8.safetensors; echo exit $?
