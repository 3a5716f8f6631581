$TL inspect examples/model.safetensors:embed/table:0 > o.txt; echo exit $?; tail -n 4 o.txt
