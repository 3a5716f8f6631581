$TL list bad/zip_stored_sizes_disagree.npz; echo exit $?
