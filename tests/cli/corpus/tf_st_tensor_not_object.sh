$TL inspect bad/tf_st_tensor_not_object.safetensors; echo exit $?
