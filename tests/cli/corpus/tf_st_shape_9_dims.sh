$TL inspect bad/tf_st_shape_9_dims.safetensors; echo exit $?
