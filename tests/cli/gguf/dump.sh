# A quantized tensor's decoded values, a slice of them, their statistics;
# a plain one as it is; a name the file lacks.
$TL dump examples/model.gguf:blk.0.ffn_down.weight 1 | cut -c1-112; echo exit $?
$TL dump --stats examples/model.gguf:token_embd.weight; echo exit $?
$TL dump examples/model.gguf:output_norm.weight | cut -c1-112; echo exit $?
$TL dump examples/model.gguf:nope; echo exit $?
