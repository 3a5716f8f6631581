printf "\000\000\200\077\000\000\000\300" > v.bin; $TL convert "{\"dataType\":\"FLOAT32\",\"sizes\":[2]}" v.bin --to W --to-type UINT16 -o out.bin; echo exit $?
