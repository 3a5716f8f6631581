$TL list examples/model.safetensors; echo exit $?
