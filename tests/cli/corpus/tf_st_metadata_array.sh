$TL inspect bad/tf_st_metadata_array.safetensors; echo exit $?
