# A safetensors OUT, by its name in any case or --format in any case: the
# tensor named by --name, its name in the source, or 'tensor'; never raw by
# accident.
$TL convert examples/nchw.npy --to NHWC -o a.SafeTensors && $TL list a.SafeTensors && $TL dump a.SafeTensors --axes NHWC
$TL convert examples/model.safetensors:conv.bias --to-type FLOAT32 -o b.safetensors && $TL list --json b.safetensors | grep '"name"'
$TL convert examples/nchw.npy --to NHWC --format SafeTensors -o - --name w | $TL list - | head -n 2
od -An -c -N 8 a.SafeTensors
$TL convert examples/padded.json examples/padded.bin --to-strides 5,1 -o p.safetensors; echo "exit $?"; ls p.safetensors 2>&1
$TL convert examples/nchw.npy --to NHWC -o q.bin --format safetensorz; echo "exit $?"
$TL convert examples/nchw.npy --to NHWC -o m.safetensors --name __metadata__; echo "exit $?"
