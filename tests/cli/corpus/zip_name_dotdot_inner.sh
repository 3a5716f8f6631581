$TL list bad/zip_name_dotdot_inner.npz; echo exit $?
