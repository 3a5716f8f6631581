$TL inspect bad/tf_st_dtype_complex.safetensors; echo exit $?
