$TL inspect bad/tf_st_truncated_length.safetensors; echo exit $?
