#!/bin/sh
# docs.sh - the documentation's examples are tests.
#
# Runs every "$ command" line of the man page's .EX/.EE blocks and of the
# ```console blocks of README.md and doc/*.md in a scratch directory where examples/ and
# tests/ are linked, with the binary's directory first on PATH, and compares
# its standard output and error with the lines that follow it in the
# document.
#
# Usage: TL=/path/to/tensorlayout sh tests/docs.sh
set -u
# pictures fit COLUMNS when it is set: the expected outputs are for 80
unset COLUMNS
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
: "${TL:?set TL to the tensorlayout binary}"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tl-docs.XXXXXX") || exit 3
trap 'rm -rf "$scratch"' EXIT INT TERM
mkdir "$scratch/bin" "$scratch/work" && ln -s "$TL" "$scratch/bin/tensorlayout"
ln -s "$root/examples" "$scratch/work/examples"
ln -s "$root/tests" "$scratch/work/tests"

# Writes the examples of a document as blocks: "$ cmd" lines, then output.
extract() {
    case $1 in
    *.1) awk '/^\.EX/ { on = 1; next } /^\.EE/ { on = 0; print "%%END"; next }
              on { gsub(/\\-/, "-"); gsub(/\\\(aq/, "\047"); gsub(/\\\(dq/, "\""); gsub(/\\e/, "\\"); gsub(/\\\[u00B7\]/, "\302\267"); gsub(/\\\[u2026\]/, "\342\200\246");
                   print }' "$1" ;;
    *) awk '/^```console/ { on = 1; next } /^```/ && on { on = 0; print "%%END"; next }
            on { print }' "$1" ;;
    esac
}

passed=0
failed=0
check() {   # doc, command, expected-file
    (cd "$scratch/work" && PATH="$scratch/bin:$PATH" sh -c "$2") >"$scratch/got" 2>&1
    if cmp -s "$3" "$scratch/got"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL $1: \$ $2"
        diff "$3" "$scratch/got" | head -n 10
    fi
}

for doc in "$root/man/tensorlayout.1" "$root/README.md" "$root"/doc/*.md; do
    extract "$doc" >"$scratch/blocks"
    cmd=
    : >"$scratch/want"
    while IFS= read -r line; do
        case $line in
        '$ '*|%%END)
            [ -n "$cmd" ] && check "${doc#"$root"/}" "$cmd" "$scratch/want"
            cmd=
            : >"$scratch/want"
            case $line in '$ '*) cmd=${line#'$ '} ;; esac ;;
        *)
            [ -n "$cmd" ] && printf '%s\n' "$line" >>"$scratch/want" ;;
        esac
    done <"$scratch/blocks"
done
echo "docs: $passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
