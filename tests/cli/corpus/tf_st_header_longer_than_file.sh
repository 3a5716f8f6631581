$TL inspect bad/tf_st_header_longer_than_file.safetensors; echo exit $?
