# A tensor read from a model file names its axes by position (0 1 2 3) and
# its layout as numpy would (C or Fortran order), or by the letters the user
# gave (--axes OIHW): DirectML's N C H W only for a DirectML description,
# or --axes by indices, which names DirectML's logical axes (issue 51).
$TL inspect examples/model.safetensors:conv.weight | grep -E '^(layout|   [0-9]  )'
$TL inspect examples/model.safetensors:conv.weight --axes OIHW | grep -E '^(layout|   [0-9]  )'
$TL inspect examples/model.safetensors:conv.weight --axes OHWI | grep -E '^(layout|   [0-9]  )'
$TL inspect examples/fortran.npy | grep -E '^(layout|   [0-9]  )'
$TL inspect examples/nchw.json | grep -E '^(layout|   [0-9]  )'
