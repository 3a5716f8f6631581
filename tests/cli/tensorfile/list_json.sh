$TL list --json examples/model.safetensors
