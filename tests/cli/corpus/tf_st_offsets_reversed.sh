$TL inspect bad/tf_st_offsets_reversed.safetensors; echo exit $?
