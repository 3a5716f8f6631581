# An ONNX model's weights (SPEC 20): where each is stored (a typed field,
# or its external data file), the model's metadata, --json's keys; a
# weight read where it lies (dump, inspect's fileOffset into the data file).
$TL list examples/model.onnx --json; echo exit $?
$TL dump examples/model.onnx:conv.bias; echo exit $?
$TL inspect examples/model.onnx:conv.bias | grep -E '^(fileOffset|data) '; echo exit $?
$TL offset examples/model.onnx:pick/then_branch/scale 0; echo exit $?
$TL dump examples/model.onnx:nothing; echo exit $?
