$TL inspect bad/tf_st_offsets_fraction.safetensors; echo exit $?
