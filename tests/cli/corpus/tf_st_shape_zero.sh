$TL inspect bad/tf_st_shape_zero.safetensors; echo exit $?
