$TL inspect bad/tf_st_malformed_json.safetensors; echo exit $?
