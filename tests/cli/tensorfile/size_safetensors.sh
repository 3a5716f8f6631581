$TL size examples/model.safetensors:conv.weight; $TL size --json examples/model.safetensors:conv.bias
