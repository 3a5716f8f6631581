$TL list bad/zip_no_end_record.npz; echo exit $?
