$TL convert examples/nchw.npy --to NHWC -o p.npy --format numpy; echo exit $?
