$TL inspect bad/tf_st_offsets_negative.safetensors; echo exit $?
