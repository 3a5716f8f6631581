for t in 1 2 3; do $TL convert examples/image.json examples/image.bin -o out$t.bin --to NHWC --threads $t; done; cmp out1.bin out2.bin && cmp out1.bin out3.bin && echo same for 1, 2, 3 threads
