# a corrupt file in the cache: named in a warning, ignored, and replaced
# by the next calibrate
[ -z "$TL_EXEC_PREFIX" ] || { echo "skip: measuring under $TL_EXEC_PREFIX means nothing"; exit 77; }
path=$($TL calibrate --show | head -n 1 | sed 's|^calibration: built-in rules (\([^:]*\): none yet.*|\1|')
mkdir -p "$(dirname "$path")" && cp bad/calib_changed.txt "$path"
$TL size examples/nchw.json 2>&1 | sed 's|/[^ ]*/tensorlayout/[^:]*\.txt|CACHE|'
$TL calibrate --quick >/dev/null 2>&1; echo "calibrate: $?"
$TL calibrate --show | head -n 1 | sed 's|/[^ ]*/tensorlayout/[^:]*\.txt|CACHE|'
