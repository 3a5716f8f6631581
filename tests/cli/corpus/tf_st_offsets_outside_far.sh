$TL inspect bad/tf_st_offsets_outside_far.safetensors; echo exit $?
