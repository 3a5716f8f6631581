$TL convert examples/model.safetensors:conv.weight --to NHWC -o w.npy && $TL dump w.npy
