# DirectML's rules judge DirectML descriptions; a tensor of a model file is
# judged by them only with --dml (SPEC 19): a BFLOAT16 safetensors tensor
# is no problem (exit 0), and with --dml it is "not a DirectML data type".
$TL inspect examples/model.safetensors:embed/table:0 > o.txt; echo exit $?; tail -n 2 o.txt
$TL inspect --dml examples/model.safetensors:embed/table:0 > o.txt; echo exit $?; tail -n 2 o.txt
$TL inspect '{"dataType":"BFLOAT16","sizes":[2,3]}' | tail -n 2; echo exit $?
