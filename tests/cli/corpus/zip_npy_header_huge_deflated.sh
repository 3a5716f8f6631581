$TL list bad/zip_npy_header_huge_deflated.npz; echo exit $?
