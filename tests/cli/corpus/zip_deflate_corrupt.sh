$TL dump bad/zip_deflate_corrupt.npz:a; echo exit $?
