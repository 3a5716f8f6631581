$TL dump bad/tf_st_name_prefix.safetensors:c/d; echo exit $?
