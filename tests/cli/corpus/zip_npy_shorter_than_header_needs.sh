$TL list bad/zip_npy_shorter_than_header_needs.npz; echo exit $?
