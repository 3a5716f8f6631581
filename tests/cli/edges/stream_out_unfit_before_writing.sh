printf "\000\000\200\077\000\000\226\103" > v.bin; $TL convert "{\"dataType\":\"FLOAT32\",\"sizes\":[2]}" v.bin --to W --to-type UINT8 -o - | wc -c; echo exit $?
