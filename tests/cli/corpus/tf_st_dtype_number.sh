$TL inspect bad/tf_st_dtype_number.safetensors; echo exit $?
