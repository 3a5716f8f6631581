$TL dump examples/model.safetensors:conv.bias && $TL offset examples/model.safetensors:embed/table:0 1,2
