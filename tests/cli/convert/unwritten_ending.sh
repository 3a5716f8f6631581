# Never raw bytes under a format's name (SPEC 23): an OUT whose ending names
# a format the tool does not write is refused with those it writes, nothing
# written; .bin stays raw for a description's DATA and for a tensor file
# that is no PyTorch model; --format raw writes raw bytes under any name.
$TL convert examples/checkpoint.pt:model.lm_head.weight --to WH -o lm.pt; echo exit $?
$TL convert examples/checkpoint.pt:model.lm_head.weight --to WH -o lm.bin; echo exit $?
$TL convert examples/checkpoint.pt -o ckpt.pth; echo exit $?
$TL convert examples/model.safetensors -o model.onnx; echo exit $?
$TL convert examples/nchw.npy --to NHWC -o model.h5; echo exit $?
$TL convert examples/nchw.npy --to NHWC -o model.TFLITE; echo exit $?
ls
$TL convert examples/nchw.json examples/nchw.bin --to NHWC -o nhwc.bin; echo exit $?
$TL convert examples/nchw.npy --to NHWC -o nhwc2.bin; echo exit $?
$TL convert examples/checkpoint.pt:model.lm_head.weight --to WH --format raw -o lm.pt; echo exit $?
ls
