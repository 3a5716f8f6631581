$TL list bad/zip_name_drive.npz; echo exit $?
