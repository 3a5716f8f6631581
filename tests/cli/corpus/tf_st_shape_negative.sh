$TL inspect bad/tf_st_shape_negative.safetensors; echo exit $?
