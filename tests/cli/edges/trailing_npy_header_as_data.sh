$TL dump "{\"dataType\":\"FLOAT32\",\"sizes\":[2,2,3]}" examples/nchw.npy | head -n 1; echo exit $?
