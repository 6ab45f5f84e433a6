#!/bin/bash
# scripts/check-log-numbers.sh: our own log message numbers (PL_LOGNO,
# docs/log-numbers) against the code; a step of make lint.
#
#   scripts/check-log-numbers.sh
#
# Reads every PL_LOGNO(nnnnn) of mod_placement/ and tools/, with the
# number on the same line or not: clang-format may break a long call
# between "PL_LOGNO(" and its number, so a line-by-line grep misses those.
# Checks that
#   - every PL_LOGNO is given a five-digit number, and no number twice;
#   - each "next:" number of docs/log-numbers is free and above every
#     number in use in its hundred (00500-00599 for 00502), the ranges of
#     the file families being hundreds;
#   - every hundred in use has a "next:" number.
# Prints one line per problem, then "log-numbers: N in use, M problems";
# exit 1 on any problem.

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

doc=docs/log-numbers
[ -f "$doc" ] || {
    echo "log-numbers: $doc not found"
    exit 2
}

mapfile -t sources < <(find mod_placement tools -name '*.[ch]' | sort)

# "FILE NUMBER" per use: the whole file read at once (-0777), so that \s*
# spans the line breaks the formatter puts after "PL_LOGNO(".
uses=$(perl -0777 -ne 'print "$ARGV $1\n" while /PL_LOGNO\(\s*([^)]*?)\s*\)/g' \
    "${sources[@]}")

# the numbers the "next:" lines give, one a line
nexts=$(grep '^next:' "$doc" | grep -o '\b[0-9]\{5\}\b')

problems=$(
    awk -v nexts="$nexts" '
    {
        if ($2 !~ /^[0-9][0-9][0-9][0-9][0-9]$/) {
            print $1 ": PL_LOGNO(" $2 ") is not a five-digit number"
            next
        }
        if ($2 in file) {
            print $1 ": PL" $2 " is used already in " file[$2]
        }
        file[$2] = $1
        h = int($2 / 100)
        if (!(h in top) || $2 + 0 > top[h] + 0) {
            top[h] = $2
        }
    }
    END {
        n = split(nexts, next_of, "\n")
        for (i = 1; i <= n; i++) {
            x = next_of[i]
            h = int(x / 100)
            has_next[h] = 1
            if (x in file) {
                print "docs/log-numbers: next " x " is used in " file[x]
            }
            else if (h in top && x + 0 < top[h] + 0) {
                print "docs/log-numbers: next " x " is below " top[h] \
                    " (" file[top[h]] ")"
            }
        }
        for (h in top) {
            if (!(h in has_next)) {
                print "docs/log-numbers: no next: number for PL" top[h] \
                    "'\''s hundred (" file[top[h]] ")"
            }
        }
    }' <<<"$uses" | sort
)

in_use=$(grep -c . <<<"$uses")
count=0
if [ -n "$problems" ]; then
    printf '%s\n' "$problems"
    count=$(grep -c . <<<"$problems")
fi
echo "log-numbers: $in_use in use, $count problems"
[ "$count" -eq 0 ]
