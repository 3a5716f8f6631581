# draw of a GGUF tensor of blocks: its decoded values, then its blocks.
$TL draw examples/model.gguf:token_embd.weight | tail -13; echo exit $?
