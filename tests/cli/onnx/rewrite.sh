# An ONNX model rewritten (SPEC 20): its weights moved into one data file
# beside OUT (offsets at multiples of 4096), or brought back in; the
# result reads the same; usage mistakes refused with nothing written.
$TL convert examples/model.onnx -o out.onnx --external-data --size-threshold 2; echo exit $?
$TL list out.onnx; echo exit $?
$TL compare examples/model.onnx out.onnx | tail -n 1; echo exit $?
$TL convert out.onnx -o back.onnx --inline -q; echo exit $?
$TL list back.onnx | head -n 6; echo exit $?
$TL convert examples/model.onnx -o x.onnx; echo exit $?
$TL convert examples/model.onnx -o x.onnx --inline --external-data; echo exit $?
$TL convert examples/model.onnx -o x.onnx --external-data=../w.bin; echo exit $?
$TL convert examples/model.onnx -o x.onnx --external-data --to-type BFLOAT16; echo exit $?
$TL convert examples/nchw.npy -o x.onnx --inline; echo exit $?
ls x.onnx* ../w.bin 2>/dev/null; echo done
