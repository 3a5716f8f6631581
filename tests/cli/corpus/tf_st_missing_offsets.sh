$TL inspect bad/tf_st_missing_offsets.safetensors; echo exit $?
