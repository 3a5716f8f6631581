$TL dump bad/zip_mixed_dump_bigendian.npz:big; echo exit $?
