$TL convert examples/nchw.npy --to NHWC --to-type BFLOAT16 -o b.npy; echo exit $?; $TL convert examples/nchw.npy --to NHWC --to-type INT16 -o i.npy && $TL list i.npy
