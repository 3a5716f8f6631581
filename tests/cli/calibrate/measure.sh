# a quick calibration: written to the cache, whole, and used from then on
[ -z "$TL_EXEC_PREFIX" ] || { echo "skip: measuring under $TL_EXEC_PREFIX means nothing"; exit 77; }
$TL calibrate --quick >out.txt 2>err.txt; echo "exit $?"
head -n 1 out.txt | sed 's|/[^ ]*/tensorlayout/[^:]*\.txt|CACHE|'
# each step named on standard error (the kernel races only where AVX-512 is)
grep -q '^tensorlayout: calibrate: measuring memcpy$' err.txt &&
    grep -q '^tensorlayout: calibrate: measuring fill$' err.txt && echo "steps named"
ls "$XDG_CACHE_HOME"/tensorlayout | wc -l
$TL calibrate --show | head -n 1 | sed 's|/[^ ]*/tensorlayout/[^:]*\.txt|CACHE|'
$TL calibrate --show --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["measured"], sorted(d["kinds"]), sorted(d["kernels"]))'
cp "$XDG_CACHE_HOME"/tensorlayout/*.txt copy.txt
TENSORLAYOUT_CALIBRATION=copy.txt $TL calibrate --show | head -n 1
# the same bytes whatever the calibration
$TL convert examples/nchw.json examples/nchw.bin -o a.bin --to NHWC
TENSORLAYOUT_CALIBRATION=off $TL convert examples/nchw.json examples/nchw.bin -o b.bin --to NHWC
cmp a.bin b.bin && echo "same bytes"
