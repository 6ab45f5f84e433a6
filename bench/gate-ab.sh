#!/bin/bash
# Two builds on one database, measured in turn: PAIRS rounds of
# bench/gate-cpu.sh against server A then server B, so that the drift of
# a shared host (a third from one minute to the next here) falls on both
# alike. Start the servers with bench/mod-httpd.sh (MOD_PLACEMENT=one .so
# each; check that the two files differ: md5sum), on the same database.
#
#   bench/gate-ab.sh RUNDIR_A PORT_A RUNDIR_B PORT_B DB_PATTERN \
#                    [PAIRS] [SECONDS] [CONNECTIONS]
#
# DB_PATTERN as gate-cpu.sh ('postgres: placement p1k ' or 'mariadbd');
# EXTRA, if set, is added to the query ('&limit=1000').
# Prints one line per run (p50, req/s, CPU per request of the server and
# of the database), then the mean p50 of each side.
set -euo pipefail
a_dir=${1:?RUNDIR_A}; a_port=${2:?PORT_A}; b_dir=${3:?RUNDIR_B}; b_port=${4:?PORT_B}
dbpat=${5:?DB_PATTERN}; pairs=${6:-6}; secs=${7:-5}; conns=${8:-1}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

run() {  # NAME RUNDIR PORT
  local out
  out=$("$here/gate-cpu.sh" "http://127.0.0.1:$3" "$2/httpd[.]conf" "$dbpat" "$secs" "$conns" "${EXTRA:-}")
  echo "$1 p50 $(echo "$out" | awk '$1 == "50%" {print $2}')" \
       "req/s $(echo "$out" | awk '/Requests\/sec/ {print $2}')" \
       "$(echo "$out" | tail -1 | sed 's/, load average.*//')"
}

for _ in $(seq "$pairs"); do
  run A "$a_dir" "$a_port"
  run B "$b_dir" "$b_port"
done | awk '{ print; p = $3; sub("ms", "", p); sum[$1] += p; n[$1]++ }
  END { for (k in sum) printf "%s: mean p50 %.2f ms over %d runs\n", k, sum[k] / n[k], n[k] }'
