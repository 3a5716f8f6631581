$TL list bad/tf_st_name_nul.safetensors; echo exit $?
