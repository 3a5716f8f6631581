$TL list bad/zip_npy_longer_than_header_needs.npz; echo exit $?
