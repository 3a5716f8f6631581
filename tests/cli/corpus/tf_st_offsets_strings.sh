$TL inspect bad/tf_st_offsets_strings.safetensors; echo exit $?
