$TL list bad/zip_not_zip_after_magic.npz; echo exit $?
