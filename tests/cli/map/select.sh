# DESC:NAME selects one tensor of a map wherever a DESC is taken; no note
# says the file is longer than the tensor, since the other tensors own it.
$TL dump examples/readback_map.json:bias examples/readback_map.bin
$TL offset examples/readback_map.json:bias 0,3,0,0
$TL inspect examples/readback_map.json:mask examples/readback_map.bin | grep -E "^(byteOffset|totalTensor|data|trailing|problems)"
$TL dump examples/readback_map.json:input examples/readback_map.bin | head -n 3
$TL convert examples/readback_map.json:input examples/readback_map.bin --to NCHW -o in.bin && od -An -tx2 -N 8 in.bin
$TL compare examples/readback_map.json:bias examples/readback_map.bin examples/readback_map.json:bias examples/readback_map.bin
