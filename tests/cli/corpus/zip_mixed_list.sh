$TL list bad/zip_mixed_list.npz; echo exit $?
