$TL inspect bad/tf_st_offsets_three.safetensors; echo exit $?
