$TL inspect bad/tf_st_duplicate_names.safetensors; echo exit $?
