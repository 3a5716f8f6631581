$TL convert "{\"dataType\":\"UINT8\",\"sizes\":[3,4,5]}" examples/image.bin --to HWC -o x.bin; echo exit $?
