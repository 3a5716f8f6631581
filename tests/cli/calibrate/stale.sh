# a cached calibration of another machine (the file was copied) is
# ignored without a word
path=$($TL calibrate --show | head -n 1 | sed 's|^calibration: built-in rules (\([^:]*\): none yet.*|\1|')
mkdir -p "$(dirname "$path")" && cp bad/calib_intel.txt "$path"
$TL size examples/nchw.json
$TL calibrate --show | head -n 1 | sed 's|/[^ ]*/tensorlayout/[^:]*\.txt|CACHE|'
