$TL list bad/zip_local_offset_wrong.npz; echo exit $?
