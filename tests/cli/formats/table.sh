# --formats prints the format table; every format the tool reads is named
# in every list of formats it prints (each command's --help, the top
# --help) and in the man page (SPEC 15: the lists come from one table).
$TL --formats; echo exit $?
$TL --formats x; echo exit $?
man=$(dirname "$(readlink examples)")/man/tensorlayout.1
$TL --formats | awk 'NR > 1 && $2 == "yes" && $1 != "json" && $1 != "raw" { print $1 }' | while read -r f; do
    case $f in safetensors) label=$f ;; pytorch) label=PyTorch ;; onnx) label=ONNX ;; *) label=.$f ;; esac
    for c in "" size inspect offset dump draw convert compare list; do
        if [ -z "$c" ]; then $TL --help; else $TL $c --help; fi | grep -q -F -- "$label" ||
            echo "'$label' is missing from ${c:-the top} --help"
    done
    grep -q -F -- "$label" "$man" || echo "'$label' is missing from the man page"
    grep -q -F -- "$f" "$man" || echo "'$f' is missing from the man page"
    echo "$f: listed"
done
# the formats recognized but not read are named in the man page
$TL --formats | awk 'NR > 1 && $2 == "no" { print $1 }' | while read -r f; do
    grep -q -i -F -- "$f" "$man" && echo "$f: in the man page"
done
# the formats convert writes, as the table says, are those of every list of
# them: convert --help's --format, the message for a --format it does not
# write, the man page's --format
writes=$($TL --formats | awk 'NR > 1 && $3 == "yes" { print $1 }' | tr '\n' ' ')
echo "writes: $writes"
for f in $writes; do
    $TL convert --help | grep -- '--format=F' | grep -q -w -- "$f" || echo "$f: not in convert --help's --format"
    $TL convert examples/nchw.json examples/nchw.bin --to NHWC --format zzz -o out 2>&1 |
        grep -q -w -- "$f" || echo "$f: not in the --format message"
    grep -A1 '^\.BR \\-\\-format " " ' "$man" | grep -q -w -- "$f" || echo "$f: not in the man page's --format"
done
