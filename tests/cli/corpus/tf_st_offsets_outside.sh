$TL inspect bad/tf_st_offsets_outside.safetensors; echo exit $?
