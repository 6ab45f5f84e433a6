# shellcheck shell=bash
# Sourced by the runners that serve through a module built with
# -fsanitize=address,undefined (make test-asan): t/run-asan,
# t/concurrency/run-asan. Sets up httpd with libasan preloaded
# (t/lib/asan-httpd) and the sanitizers writing their reports to files of
# a scratch directory $SAN (log_path), not to the error log. Leak
# detection is off (httpd's children exit through their own paths,
# without freeing); every UBSan finding is fatal to the request's child
# (-fno-sanitize-recover) and reported.
#
#   asan_module_check MODULE   1 and a message unless MODULE has ASan
#   asan_reports               prints each report, sets $reports (count;
#                              apr-util's known one apart, in $foreign)

asan_module_check() {
  if ! nm -D "$1" 2>/dev/null | grep __asan_init >/dev/null; then
    echo "$1 is not built with -fsanitize=address (make test-asan)"
    return 1
  fi
}

SAN=$(mktemp -d /tmp/pl-asan.XXXXXX) || exit 1
chmod 777 "$SAN"
export ASAN_OPTIONS="detect_leaks=0:log_path=$SAN/asan:detect_stack_use_after_return=0:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$SAN/ubsan"
export PL_REAL_APACHE2=${APACHE2:-$(command -v apache2 || echo /usr/sbin/apache2)}
export APACHE2=$REPO/t/lib/asan-httpd

# A defect of apr-util, not of the module, that only a MariaDB
# connection lost in its first microseconds meets: apr_dbd_open_ex()
# pings a connection it just opened and, when the ping fails, takes the
# driver's error text (a pointer into the MYSQL handle), closes the
# handle (freeing it), and mod_dbd's dbd_construct then logs that text
# (AH00629 "Can't connect to ..."): a read of freed memory in
# ap_log_error. The report is printed and counted apart.
apr_dbd_open_ex_bug() {
  grep -q 'heap-use-after-free' "$1" &&
    grep -q 'in ap_log_error_' "$1" &&
    grep -q 'in apr_reslist_acquire' "$1" &&
    sed -n '/^freed by thread/,/^$/p' "$1" | grep -q 'apr_dbd_mysql'
}

asan_reports() {
  local f
  reports=0 foreign=0
  for f in "$SAN"/asan.* "$SAN"/ubsan.*; do
    [ -s "$f" ] || continue
    if apr_dbd_open_ex_bug "$f"; then
      foreign=$((foreign + 1))
      [ "$foreign" = 1 ] || continue
      echo "### apr-util's apr_dbd_open_ex (t/lib/asan-env.sh), first of them: $f"
      head -12 "$f"
      continue
    fi
    reports=$((reports + 1))
    echo "### sanitizer report $f:"
    head -60 "$f"
  done
  [ "$foreign" = 0 ] || echo "# $foreign reports of apr-util's apr_dbd_open_ex, not counted"
}
