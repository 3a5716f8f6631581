$TL inspect bad/tf_st_offsets_size_mismatch.safetensors; echo exit $?
