$TL inspect bad/tf_st_dtype_unknown.safetensors; echo exit $?
