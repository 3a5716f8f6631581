# A whole GGUF into safetensors (FLOAT32, the metadata as gguf.KEY) and into
# an .npz (FLOAT16); compare finds the decoded values equal.
$TL convert examples/model.gguf -o m.safetensors; echo exit $?
$TL list m.safetensors; echo exit $?
$TL convert examples/model.gguf --to-type FLOAT16 -o m.npz; echo exit $?
$TL list m.npz; echo exit $?
$TL compare examples/model.gguf m.safetensors; echo exit $?
$TL compare examples/model.gguf:blk.0.attn_q.weight m.safetensors:blk.0.attn_q.weight; echo exit $?
