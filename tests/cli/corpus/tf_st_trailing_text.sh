$TL inspect bad/tf_st_trailing_text.safetensors; echo exit $?
