#!/bin/bash
# scripts/lint.sh: static analysis of the module's C files (make lint).
#
#   scripts/lint.sh [FILES...]     default: every .c file of mod_placement/
#                                  and tools/
#
# Each file goes through two analysers, with the include flags the Makefile
# compiles it with (the library below the glue without httpd's headers,
# httpd/, api/ and mod_placement.c with them):
#   cppcheck    warnings and portability (--enable=warning,portability);
#               "// cppcheck-suppress id" on the line above silences one.
#               Off: varFuncNullUB, "passing NULL after the last typed
#               argument to a variadic function": the NULL that ends
#               apr_pstrcat's arguments is APR's documented sentinel, and
#               glibc's C NULL is ((void *)0), a pointer, so the UB it
#               warns of (NULL as a plain int 0) cannot happen here; it
#               would flag every apr_pstrcat call
#   clang-tidy  the checks of .clang-tidy (bugprone-*, clang-analyzer-*),
#               reports in the project's own headers included; "NOLINT"
#               silences one
# Every report is printed; a file is "passed" when neither tool reports
# anything for it (its headers included). Without FILES,
# scripts/check-log-numbers.sh then checks our log message numbers against
# docs/log-numbers (one more "file": passed or failed). The last lines
# count the reports per tool, then "lint: N passed, M failed". Exit 1 on
# any report.
#
# Environment: CPPCHECK (cppcheck), CLANG_TIDY (clang-tidy), APXS (apxs),
# LINT_JOBS (files analysed at once; nproc).

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2

CPPCHECK=${CPPCHECK:-cppcheck}
CLANG_TIDY=${CLANG_TIDY:-clang-tidy}
APXS=${APXS:-apxs}
JOBS=${LINT_JOBS:-$(nproc 2>/dev/null || echo 1)}

for tool in "$CPPCHECK" "$CLANG_TIDY" "$APXS"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "lint: $tool not found (apt-get install cppcheck clang-tidy" \
            "apache2-dev)"
        echo "lint: 0 passed, 1 failed"
        exit 1
    fi
done

# The flags of the Makefile's two sides.
LIB_FLAGS="-Iinclude $(apr-1-config --cppflags --includes) \
$(apu-1-config --includes) $(pkg-config --cflags json-c libcurl yaml-0.1)"
MOD_FLAGS="$LIB_FLAGS -Imod_placement/httpd -Imod_placement/api \
-I$("$APXS" -q INCLUDEDIR)"
export LIB_FLAGS MOD_FLAGS CPPCHECK CLANG_TIDY top

whole_tree=0
if [ $# -gt 0 ]; then
    files=("$@")
else
    whole_tree=1
    files=(mod_placement/*.c mod_placement/*/*.c tools/*/*.c)
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/pl-lint.XXXXXX")
trap 'rm -rf "$out"' EXIT
export out

# lint_one FILE: FILE's reports into $out/<FILE with / as _>.{cppcheck,tidy}
lint_one() {
    local f=$1 flags base
    case $f in
    mod_placement/httpd/* | mod_placement/api/*) flags=$MOD_FLAGS ;;
    mod_placement/*/*) flags=$LIB_FLAGS ;;
    tools/*) flags="$LIB_FLAGS -I$(dirname "$f")" ;; # the library's, no httpd
    *) flags=$MOD_FLAGS ;; # mod_placement.c, the module's entry
    esac
    base=$out/$(echo "$f" | tr / _)
    # shellcheck disable=SC2086 # the flags are words
    "$CPPCHECK" --quiet --enable=warning,portability --inline-suppr \
        --std=c99 --library=posix --error-exitcode=0 \
        --suppress=missingIncludeSystem --suppress=varFuncNullUB \
        --template='{file}:{line}:{column}: {severity}: {message} [{id}]' \
        $flags "$f" >"$base.cppcheck" 2>&1
    # shellcheck disable=SC2086
    "$CLANG_TIDY" --quiet \
        --header-filter="^(\./)?(include|mod_placement)/|^$top/(include|mod_placement)/" \
        "$f" -- -std=gnu99 $flags 2>/dev/null |
        grep -v '^[0-9]* warnings\? generated' >"$base.tidy"
}
export -f lint_one

# shellcheck disable=SC2016 # $1 is lint_one's, expanded by the inner bash
printf '%s\n' "${files[@]}" | xargs -P "$JOBS" -I{} bash -c 'lint_one "$1"' _ {}

pass=0
fail=0
n_cppcheck=0
n_tidy=0
for f in "${files[@]}"; do
    base=$out/$(echo "$f" | tr / _)
    c=$(grep -c '^[^ ].*: [a-z]*: .*\[[A-Za-z0-9_]*\]$' "$base.cppcheck")
    t=$(grep -c '^[^ ].*: \(warning\|error\): .*\[[A-Za-z0-9.,-]*\]$' "$base.tidy")
    n_cppcheck=$((n_cppcheck + c))
    n_tidy=$((n_tidy + t))
    if [ -s "$base.cppcheck" ] || [ -s "$base.tidy" ]; then
        echo "== $f: cppcheck $c, clang-tidy $t"
        cat "$base.cppcheck" "$base.tidy"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
done
if [ "$whole_tree" = 1 ]; then
    if "$top/scripts/check-log-numbers.sh"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
    fi
fi
echo "lint: cppcheck $n_cppcheck reports, clang-tidy $n_tidy reports"
echo "lint: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
