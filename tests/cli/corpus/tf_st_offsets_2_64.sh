$TL inspect bad/tf_st_offsets_2_64.safetensors; echo exit $?
