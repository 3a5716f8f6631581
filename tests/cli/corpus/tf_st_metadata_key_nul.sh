$TL inspect bad/tf_st_metadata_key_nul.safetensors; echo exit $?
