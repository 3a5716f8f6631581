$TL inspect bad/tf_st_shape_overflow.safetensors; echo exit $?
