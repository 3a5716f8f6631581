# A GGUF model's tensors: ggml types, logical sizes (ne reversed), blocks;
# the metadata by count, then with --metadata; --json with --metadata is
# --json, which always holds the metadata (SPEC 23: it was a usage error).
$TL list examples/model.gguf; echo exit $?
$TL list --metadata examples/model.gguf; echo exit $?
$TL list --metadata --json examples/model.gguf; echo exit $?
