$TL inspect bad/tf_st_dtype_lowercase.safetensors; echo exit $?
