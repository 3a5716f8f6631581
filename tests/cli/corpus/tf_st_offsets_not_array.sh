$TL inspect bad/tf_st_offsets_not_array.safetensors; echo exit $?
