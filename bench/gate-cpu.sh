#!/bin/bash
# The gate query (the bench's MAIN_QUERY) under wrk, with the CPU per request
# of the httpd children and of the database server processes, from /proc.
#
#   bench/gate-cpu.sh URL SERVER_PATTERN DB_PATTERN [SECONDS] [CONNECTIONS] [EXTRA_QUERY]
#
# SERVER_PATTERN: an extended regex on the command lines of the server's
# processes ('/tmp/x/httpd[.]conf' for bench/mod-httpd.sh's run directory
# /tmp/x; add '|wsgi:placement' for the reference's mod_wsgi daemons);
# DB_PATTERN: the same for the database processes ('postgres: placement p1k '
# or 'mariadbd'). wrk runs with min(2, CONNECTIONS) threads. Prints wrk's
# output, then requests, server CPU ms/request, DB CPU ms/request and the
# load average.
set -euo pipefail
url=${1:?URL}; srvpat=${2:?SERVER_PATTERN}; dbpat=${3:?DB_PATTERN}
secs=${4:-10}; conns=${5:-1}; extra=${6:-}
Q="resources=VCPU:1,DISK_GB:10,MEMORY_MB:256&member_of=14a5c8a3-5a99-4e8f-88be-00d85fcb1c17&required=HW_CPU_X86_AVX2$extra"
cpu() {  # total utime+stime ticks of processes whose cmdline matches $1
  local pat=$1 sum=0 pid f
  for pid in $(pgrep -f -- "$pat" | grep -v "^$$\$" || true); do
    [ "$pid" = $$ ] && continue
    f=$(cut -d')' -f2- "/proc/$pid/stat" 2>/dev/null) || continue
    set -- $f
    sum=$((sum + ${12} + ${13}))
  done
  echo $sum
}
h0=$(cpu "$srvpat"); d0=$(cpu "$dbpat")
threads=$((conns < 2 ? conns : 2))
out=$(wrk -t"$threads" -c"$conns" -d"${secs}s" --latency -H 'x-auth-token: admin' \
      -H 'openstack-api-version: placement latest' "$url/allocation_candidates?$Q")
h1=$(cpu "$srvpat"); d1=$(cpu "$dbpat")
echo "$out"
n=$(echo "$out" | awk '/requests in/ {print $1}')
tick=$(getconf CLK_TCK)
awk -v n="$n" -v h=$((h1 - h0)) -v d=$((d1 - d0)) -v t="$tick" -v la="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  printf "requests %d, server CPU %.2f ms/request, DB CPU %.2f ms/request, load average %s\n",
         n, 1000 * h / t / n, 1000 * d / t / n, la }'
