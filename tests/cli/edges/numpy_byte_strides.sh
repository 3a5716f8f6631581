$TL dump "{\"dataType\":\"FLOAT32\",\"sizes\":[1,1,3,5],\"strides\":[60,60,20,4]}" examples/nchw.bin; echo exit $?
