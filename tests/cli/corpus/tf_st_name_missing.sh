$TL dump bad/tf_st_name_missing.safetensors; echo exit $?
