$TL convert examples/nchw.npy --to-strides 24,12,4,1 -o p.npy; echo exit $?; $TL convert examples/padded.json examples/padded.bin --to-strides 4,1 -o p.npy; echo exit $?; ls
