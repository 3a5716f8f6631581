# "-o=x.npy" would write a file named "=x.npy": refused, with what was meant.
$TL convert examples/nchw.npy --to NHWC -o=x.npy; echo exit $?
ls -A | grep -c '='
$TL convert examples/nchw.npy --to NHWC -ox.npy; echo exit $?; ls x.npy
$TL convert examples/nchw.npy --to NHWC -o x2.npy -q=1; echo exit $?
