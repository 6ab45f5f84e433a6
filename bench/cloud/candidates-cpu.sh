#!/bin/bash
# Nova's allocation candidates request on a cloud of N computes, one at a
# time: httpd's CPU per request (bench/cpu-per-request.sh) and
# PostgreSQL's, and the children's resident memory after, for each
# PlacementCandidatesMemory given, in turn (issue 37).
#
#   bench/cloud/candidates-cpu.sh [N] [MB ...]     (default 2500, "4 32 4 32")
#   MODULES="A.so B.so" bench/cloud/candidates-cpu.sh 2500 32 32 32
#
# The cloud is bench/cloud/build.py's (--fill 0.45 --seed 42), loaded as
# bench/cloud/run loads it, into a private PostgreSQL under WORK
# (/tmp/candidates-cpu); REQUESTS (40) requests per setting; MOD_PLACEMENT
# as for bench/mod-httpd.sh, or MODULES, several builds of the module
# measured in turn with each setting (two builds on one database).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
N=${1:-2500}; shift || true
SETTINGS=${*:-4 32 4 32}
WORK=${WORK:-/tmp/candidates-cpu}
REQUESTS=${REQUESTS:-40}
PORT=${PORT:-28898}
MODULES=${MODULES:-${MOD_PLACEMENT:-$REPO/build/mod_placement.so}}
export MOD_PLACEMENT=${MODULES%% *} # the one that loads the cloud
# shellcheck source=../../scripts/lib-db.sh
. "$REPO/scripts/lib-db.sh"

rm -rf "$WORK"; mkdir -p "$WORK"
python3 "$REPO/bench/cloud/build.py" "$N" --fill 0.45 --seed 42 \
  --sql "$WORK/cloud.sql" --desc "$WORK/cloud.desc" 2>&1 | tail -1
pg_start "$WORK/pg" >/dev/null
trap '"$REPO/bench/mod-httpd.sh" stop "$WORK/mod"; kill -INT "$(head -1 "$WORK/pg/data/postmaster.pid")"' EXIT
U=postgresql://placement:placement@127.0.0.1:$PG_PORT/cloud
psql_pg() { PGPASSWORD=placement psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U placement -d cloud "$@"; }
PL_DB_HEAD=422ece571366 "$REPO/scripts/db-init.sh" --recreate "$U" >/dev/null 2>&1
"$REPO/bench/mod-httpd.sh" start "$WORK/mod" "$PORT" "$U" >/dev/null
curl -fsS -o /dev/null -H 'X-Auth-Token: admin' -H 'OpenStack-API-Version: placement 1.6' \
  "http://127.0.0.1:$PORT/traits"   # the standard data, before the cloud's rows
psql_pg -v ON_ERROR_STOP=1 -f "$WORK/cloud.sql" -o /dev/null
psql_pg -c "VACUUM ANALYZE"
"$REPO/bench/mod-httpd.sh" stop "$WORK/mod"

pg_cpu() {  # CPU ticks of this PostgreSQL's processes
  local sum=0 pid f
  for pid in $(pgrep -f "postgres.*$WORK/pg|postgres: placement cloud"); do
    f=$(cut -d')' -f2- "/proc/$pid/stat" 2>/dev/null) || continue
    set -- $f
    sum=$((sum + ${12} + ${13}))
  done
  echo $sum
}
# nova's request (scheduler's report client, 2026.1): one group, limit 1000
Q='limit=1000&resources=DISK_GB%3A20%2CMEMORY_MB%3A2048%2CVCPU%3A1&root_required=%21COMPUTE_STATUS_DISABLED'
for mb in $SETTINGS; do for module in $MODULES; do
  MOD_PLACEMENT=$module EXTRA_CONF="PlacementCandidatesMemory $mb" \
    "$REPO/bench/mod-httpd.sh" start "$WORK/mod" "$PORT" "$U" >/dev/null
  p0=$(pg_cpu)
  out=$("$REPO/bench/cpu-per-request.sh" "http://127.0.0.1:$PORT/allocation_candidates?$Q" "$WORK/mod" "$REQUESTS")
  p1=$(pg_cpu)
  rss=$(for p in $(pgrep -f "$WORK/mod/httpd[.]conf"); do
          awk '/^VmRSS/ {printf "%d ", $2 / 1024}' "/proc/$p/status"; done)
  echo "$module, PlacementCandidatesMemory $mb: $out; PostgreSQL $(( (p1 - p0) * 1000 / $(getconf CLK_TCK) / (REQUESTS + 1) )) ms CPU/request; httpd RSS MiB: $rss"
  "$REPO/bench/mod-httpd.sh" stop "$WORK/mod"
done; done
