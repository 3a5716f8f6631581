$TL convert bad/zip_mixed_to_safetensors.npz --to-type FLOAT16 -o out.safetensors; echo exit $?
