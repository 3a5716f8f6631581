#!/bin/sh
# longest.sh - no function of the command line is longer than LIMIT lines
# (issue 74: the command line parses, opens, prints; a long function there
# is engine work that belongs in the library).  A function is what lies
# between a "{" alone at the start of a line and the next "}" there, as the
# project's style writes every function.
#
# Usage: sh tests/longest.sh LIMIT FILE...
limit=$1
shift
awk -v limit="$limit" '
    FNR == 1 { start = 0 }
    /^\{$/ { start = FNR; head = prev }
    /^\}/ && start {
        n = FNR - start - 1
        if (n > limit) { printf "%s:%d: %d lines (the limit is %d): %s\n", FILENAME, start, n, limit, head; bad = 1 }
        if (n > most) { most = n; where = FILENAME ":" start }
        start = 0
    }
    { prev = $0 }
    END {
        if (bad) exit 1
        printf "command line: its longest function has %d lines (%s), at most %d\n", most, where, limit
    }' "$@"
