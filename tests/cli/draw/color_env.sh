# --color auto colours a terminal, unless NO_COLOR is set; never a pipe
command -v script >/dev/null || { echo "skip: no script(1) for a terminal"; exit 77; }
esc=$(printf '\033')
echo "terminal: $(script -qec "$TL draw examples/padded.json" /dev/null | grep -c "$esc\[38;2")"
echo "NO_COLOR: $(NO_COLOR=1 script -qec "$TL draw examples/padded.json" /dev/null | grep -c "$esc\[38;2")"
echo "pipe: $($TL draw examples/padded.json | grep -c "$esc\[")"
