$TL convert examples/model.safetensors:embed/table:0 --to-strides 4,1 --fill 0.5 -o b.bin --out-desc b.json && $TL dump --physical b.json b.bin
