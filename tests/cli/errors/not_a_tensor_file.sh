# A file of no format the tool reads says which formats it reads.
printf '# Notes\n\nweights from run 7\n' > notes.md
printf 'name,shape\nconv,3x3\n' > names.csv
$TL list notes.md; echo exit $?
$TL dump names.csv; echo exit $?
$TL list examples/nchw.bin; echo exit $?
# binary: its first bytes, and what they start when they are a format often tried here
printf '\037\213\010\000\000\000\000\000\000\003' > w.gz; $TL list w.gz; echo exit $?
printf '\211HDF\r\n\032\n\000\000\000\000\000' > w.h5; $TL list w.h5; echo exit $?
