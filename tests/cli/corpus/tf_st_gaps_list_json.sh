$TL list --json bad/tf_st_gaps_list_json.safetensors; echo exit $?
