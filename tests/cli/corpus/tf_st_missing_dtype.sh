$TL inspect bad/tf_st_missing_dtype.safetensors; echo exit $?
