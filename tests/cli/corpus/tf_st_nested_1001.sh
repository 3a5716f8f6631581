$TL inspect bad/tf_st_nested_1001.safetensors; echo exit $?
