$TL dump bad/tf_st_overlap_dump.safetensors:a; echo exit $?
