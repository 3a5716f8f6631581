$TL dump bad/zip_crc_wrong.npz:a; echo exit $?
