$TL list bad/zip_npy_garbage.npz; echo exit $?
