$TL inspect bad/tf_st_shape_not_array.safetensors; echo exit $?
