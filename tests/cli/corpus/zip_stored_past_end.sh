$TL list bad/zip_stored_past_end.npz; echo exit $?
