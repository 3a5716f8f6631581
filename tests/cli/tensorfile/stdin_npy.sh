cat examples/nchw.npy | $TL inspect - | tail -n 2; cat examples/model.safetensors | $TL list -
