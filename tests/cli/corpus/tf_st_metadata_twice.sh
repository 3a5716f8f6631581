$TL inspect bad/tf_st_metadata_twice.safetensors; echo exit $?
