$TL list bad/tf_st_overlap_list.safetensors; echo exit $?
