# Every file of the bad-input corpus that inspect refuses as invalid input
# is refused by every command that reads it, with exit status 4 and nothing
# on standard output (SPEC section 3).  Prints each violation, then counts.
# Some 3900 command lines, every file by every command: they run in one
# process ($TL_BATCH, tests/cli/batch.c, which runs each line as the tool
# does and reports its status, its output's size and the files it left),
# so the sweep costs seconds, under ASan too.
head -c 4096 /dev/zero > data.bin
invalid=0 valid=0
: > commands
for f in bad/*.json bad/*.npy bad/*.safetensors; do
    echo "inspect $f"
done > probe
$TL_BATCH < probe > probed || exit 3
while read -r rc bytes colon cmd f; do
    if [ "$rc" -ne 4 ]; then
        valid=$((valid + 1))
        continue
    fi
    invalid=$((invalid + 1))
    case $f in
    *.json) data=data.bin ;;
    *) data= ;;
    esac
    for cmd in "inspect $f" "inspect --json $f" "size $f" "offset $f 0" "offset --json $f 0" \
               "offset $f --byte 0" "dump $f $data" "dump --json $f $data" \
               "dump --physical $f $data" "convert $f $data --to W -o out.bin" \
               "convert $f $data --to W -o out.bin --json" "compare $f $data $f $data" \
               "list $f"; do
        echo "$cmd"
    done >> commands
done < probed
$TL_BATCH < commands > results || exit 3
runs=0
while read -r rc bytes rest; do
    runs=$((runs + 1))
    new=${rest%%:*}
    cmd=${rest#*: }
    # size takes no tensor file (a usage error); list reads a tensor
    # file whole, and one that is well formed but ambiguous for the
    # other commands (several tensors, gaps) is its answer, not an error;
    # so is compare of two such files whole (SPEC 19), when list reads
    # the file without a problem
    case "$cmd" in
    size*) [ "$rc" -eq 2 ] && continue ;;
    list*.npy|list*.safetensors) [ "$rc" -le 1 ] && continue ;;
    compare*.safetensors*)
        f=${cmd#compare }; f=${f%% *}
        [ "$rc" -le 1 ] && grep -q "^[01] [0-9]* : list $f\$" results && continue ;;
    esac
    if [ "$rc" -ne 4 ] || [ "$bytes" -ne 0 ]; then
        echo "$cmd: exit $rc, $bytes bytes on standard output"
    fi
    for n in $new; do
        echo "$cmd: wrote $n"
    done
done < results
echo "$invalid invalid files, $runs commands run on them; $valid files inspect reads"
