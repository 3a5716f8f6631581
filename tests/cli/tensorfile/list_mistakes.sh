$TL list examples/model.safetensors:conv.bias; echo exit $?; $TL list examples/nchw.bin; echo exit $?
