$TL dump bad/zip_control_valid.npz:dir/b; echo exit $?
