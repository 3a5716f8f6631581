$TL dump bad/tf_st_name_unknown.safetensors:nope; echo exit $?
