$TL list bad/zip_overlapping_members.npz; echo exit $?
