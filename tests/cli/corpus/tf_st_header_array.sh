$TL inspect bad/tf_st_header_array.safetensors; echo exit $?
