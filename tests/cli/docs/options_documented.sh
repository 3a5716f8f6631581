# The man page is the reference (SPEC 23): every option of every command's
# --help has an entry in OPTIONS (a .TP whose line names it), and every
# option an OPTIONS entry names is in some command's --help.  A missing one
# is printed, and the test fails until the two agree.
man=$(dirname "$(readlink examples)")/man/tensorlayout.1
{
    for c in inspect size offset strides dump convert list compare draw calibrate; do
        $TL $c --help
    done | grep -oE '^  (-[a-zA-Z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+'
    $TL --help | sed -n 's/^ *tensorlayout --help | \(.*\) | help COMMAND$/\1/p' | tr -d ' ' | tr '|' '\n'
} | sort -u > help.txt
awk '/^\.SH OPTIONS/ { on = 1; next } /^\.SH / { on = 0 } on && prev == ".TP" { print } { prev = $0 }' "$man" |
    grep -oE '\\-\\-[a-z0-9\\-]+' | sed 's/\\//g' | sort -u > man.txt
comm -23 help.txt man.txt | sed 's/^/in a --help, with no entry in OPTIONS: /'
comm -13 help.txt man.txt | sed 's/^/in OPTIONS, in no --help: /'
echo "$(wc -l < help.txt) options in --help, $(wc -l < man.txt) in OPTIONS"
