#!/bin/bash
# Server CPU per request of one GET: utime + stime of the httpd children
# (/proc/PID/stat) around N sequential requests (after one warm-up), with
# the md5 and size of the answer and the load average.
#
#   bench/cpu-per-request.sh URL HTTPD_RUNDIR [N]
#
# URL is the whole request URL; HTTPD_RUNDIR the run directory of
# bench/mod-httpd.sh (its httpd.conf names the processes).
set -euo pipefail
url=${1:?URL}; run=${2:?HTTPD_RUNDIR}; n=${3:-10}
H=(-H 'x-auth-token: admin' -H 'openstack-api-version: placement 1.39')
cpu() {
  local sum=0 pid f
  for pid in $(pgrep -f -- "$run/httpd[.]conf" || true); do
    f=$(cut -d')' -f2- "/proc/$pid/stat" 2>/dev/null) || continue
    set -- $f
    sum=$((sum + ${12} + ${13}))
  done
  echo $sum
}
sum=$(curl -s "${H[@]}" "$url" | md5sum | cut -c1-32)
size=$(curl -s -o /dev/null -w '%{size_download}' "${H[@]}" "$url")
c0=$(cpu); t0=$(date +%s%N)
for _ in $(seq "$n"); do curl -s -o /dev/null "${H[@]}" "$url"; done
c1=$(cpu); t1=$(date +%s%N)
awk -v c=$((c1 - c0)) -v t="$(getconf CLK_TCK)" -v n="$n" -v w=$(((t1 - t0) / 1000000)) \
    -v s="$sum" -v b="$size" -v la="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
  printf "%.1f ms server CPU/request, %.1f ms wall/request, %d bytes, md5 %s, load average %s\n",
         1000 * c / t / n, w / n, b, s, la }'
