# list takes inline JSON like every command (issue 46: it said "cannot
# open"): a buffer map, a lone description with its data, a malformed one.
$TL list '{"tensors":[{"name":"a","dataType":"FLOAT32","sizes":[2,3]},{"name":"b","dataType":"FLOAT16","sizes":[4],"fileOffset":32}]}'; echo exit $?
$TL list '{"dataType":"FLOAT32","sizes":[2,3]}' examples/hw.bin; echo exit $?
$TL list ' {"dataType":'; echo exit $?
