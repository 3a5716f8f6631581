$TL list bad/zip_npy_shorter_deflated.npz; echo exit $?
