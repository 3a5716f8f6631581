# GGUF OUT: Q8_0 of a GGUF's floating tensors (the Q8_0 one carried), its
# metadata kept; tensors already of another block type are requantized only
# with --allow-requantize, and a 1-D tensor (a norm) stays FLOAT32, as
# llama.cpp quantizes (SPEC 23); a block type other than Q8_0 and Q4_0, a
# layout change, an unsigned type, a .gguf OUT from a file whose rows are
# not whole blocks.
$TL convert examples/model.gguf --to-type Q8_0 -o q.gguf; echo exit $?
$TL convert examples/model.gguf --to-type Q8_0 --allow-requantize -o q.gguf; echo exit $?
$TL list q.gguf; echo exit $?
$TL convert examples/model.gguf --to-type Q4_K -o q4.gguf; echo exit $?
$TL convert examples/model.gguf --to 1,0 -o t.gguf; echo exit $?
$TL convert examples/model.safetensors --to-type Q4_0 -o s.gguf; echo exit $?
$TL convert examples/model.safetensors -o s.gguf; echo exit $?
$TL list s.gguf; echo exit $?
$TL convert '{"dataType":"UINT8","sizes":[4]}' examples/nchw.bin -o u.gguf; echo exit $?
$TL convert examples/model.safetensors --to-type Q8_0 -o s.safetensors; echo exit $?
ls
