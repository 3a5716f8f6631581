echo "{\"dataType\":\"FLOAT32\",\"sizes\":[1,2,2,3],\"byteOffset\":16}" > d.json; $TL convert examples/nchw.npy --to-desc d.json -o p.npy; echo exit $?; ls
