command -v script >/dev/null || { echo "skip: no script(1) to give the tool a terminal"; exit 77; }
script -qec "$TL convert examples/nchw.json examples/nchw.bin -o - --to NHWC" /dev/null > t.txt; echo exit $?; tr -d "\r" < t.txt
