# A GGUF tensor of blocks: inspect says how it is stored; offset INDEX names
# an element's block, its bits and its scales; --byte N the elements a byte
# of the file holds, or that it lies outside the tensor's blocks.
$TL inspect examples/model.gguf:blk.0.attn_q.weight | head -3; echo exit $?
$TL offset examples/model.gguf:blk.0.attn_q.weight 1,5 0,200; echo exit $?
$TL offset examples/model.gguf:blk.0.ffn_down.weight 1,130; echo exit $?
$TL offset examples/model.gguf:token_embd.weight 0,33; echo exit $?
$TL offset examples/model.gguf:blk.0.attn_q.weight --byte 2630; echo exit $?
$TL offset examples/model.gguf:blk.0.attn_q.weight --byte 2645; echo exit $?
$TL offset examples/model.gguf:blk.0.attn_q.weight --byte 5000; echo exit $?
$TL offset --json examples/model.gguf:token_embd.weight --byte 1000; echo exit $?
$TL offset examples/model.gguf:blk.0.attn_q.weight 4,0; echo exit $?
