$TL inspect bad/tf_st_metadata_number.safetensors; echo exit $?
