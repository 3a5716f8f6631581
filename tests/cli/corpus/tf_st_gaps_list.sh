$TL list bad/tf_st_gaps_list.safetensors; echo exit $?
