$TL convert bad/zip_mixed_to_npz.npz --to-type FLOAT16 -o out.npz && $TL list out.npz; echo exit $?
