# Sniffing takes the strongest bid (SPEC 15).  A GGUF file whose tensor
# count starts with the byte '{' (0x7b) is GGUF, not a safetensors header
# of absurd length; a zip whose first member is ARCHIVE/data.pkl is a
# PyTorch checkpoint, not an .npz of unknown members; neither is read yet,
# each named (exit 4).  An .npz (any other zip) and safetensors are still
# themselves.
printf 'GGUF\003\000\000\000\173\000\000\000\000\000\000\000\002\000\000\000\000\000\000\000' > m.gguf
$TL list m.gguf; echo exit $?
$TL dump m.gguf:x; echo exit $?
# a stored zip member named model/data.pkl, as torch.save writes it first
printf 'PK\003\004\024\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\016\000\000\000model/data.pkl' > model.pt
$TL list model.pt; echo exit $?
$TL convert model.pt --to-type BFLOAT16 -o out.safetensors; echo exit $?; ls
$TL list examples/weights.npz >/dev/null; echo exit $?
$TL list examples/model.safetensors >/dev/null; echo exit $?
# from standard input too
$TL list - < m.gguf; echo exit $?
