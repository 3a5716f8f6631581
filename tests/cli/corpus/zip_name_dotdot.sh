$TL list bad/zip_name_dotdot.npz; echo exit $?
