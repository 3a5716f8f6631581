# A file of no format the tool reads says which formats it reads.
printf '# Notes\n\nweights from run 7\n' > notes.md
printf 'name,shape\nconv,3x3\n' > names.csv
$TL list notes.md; echo exit $?
$TL dump names.csv; echo exit $?
$TL list examples/nchw.bin; echo exit $?
