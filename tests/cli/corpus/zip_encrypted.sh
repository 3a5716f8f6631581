$TL list bad/zip_encrypted.npz; echo exit $?
