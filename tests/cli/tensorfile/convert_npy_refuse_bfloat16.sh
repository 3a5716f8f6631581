$TL convert examples/model.safetensors:embed/table:0 --to WH -o t.npy; echo exit $?; ls
