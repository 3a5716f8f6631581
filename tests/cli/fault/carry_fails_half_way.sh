# A tensor whose bytes go out as they are is copied file to file inside the
# kernel (copy_file_range); a copy that fails half-way leaves OUT as it was
# and no temporary file.
echo old > out.safetensors; LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=write_file_after:400 $TL convert examples/checkpoint.pt -o out.safetensors; echo exit $?; cat out.safetensors; ls -A
