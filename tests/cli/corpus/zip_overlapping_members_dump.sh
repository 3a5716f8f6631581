$TL dump bad/zip_overlapping_members_dump.npz:b; echo exit $?
