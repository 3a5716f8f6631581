# A model file's tensor is drawn with its axes by position, or by the
# letters --axes gives; --to by letters names them as DirectML does; an
# --at out of range names the axis the same way.
$TL draw examples/model.safetensors:conv.weight | sed -n 3p
$TL draw examples/model.safetensors:conv.weight --axes OHWI | sed -n 3p
$TL draw examples/model.safetensors:conv.weight --to NHWC | sed -n 3p
$TL draw examples/model.safetensors:conv.weight --at 0,0,5,0; echo exit $?
$TL draw examples/model.safetensors:conv.weight --axes OIHW --at 0,0,5,0; echo exit $?
