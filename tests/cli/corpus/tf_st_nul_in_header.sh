$TL inspect bad/tf_st_nul_in_header.safetensors; echo exit $?
