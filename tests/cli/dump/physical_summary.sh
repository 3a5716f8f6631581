# a summarized physical dump keeps its padding in view: the run it leaves out, one line (SPEC 19)
$TL dump --physical '{"dataType": "UINT8", "sizes": [2, 1000], "strides": [1001, 1]}' examples/image.bin
