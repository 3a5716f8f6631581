$TL list bad/zip_local_offset_past_end.npz; echo exit $?
