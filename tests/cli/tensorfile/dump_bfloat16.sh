$TL dump examples/model.safetensors:embed/table:0 && $TL dump --json examples/model.safetensors:embed/table:0
