# the first offending value in logical order, whatever the layouts
printf "\000\000\200\077\000\000\200\103\000\000\200\304\000\000\000\000" > v.bin; $TL convert "{\"dataType\":\"FLOAT32\",\"sizes\":[2,2],\"layout\":\"WH\"}" v.bin --to HW --to-type UINT8 -o out.bin; echo exit $?
