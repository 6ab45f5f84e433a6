#!/bin/bash
# Issue 26's benchmarks, one command each (docs/benchmarks.md, "The
# scheduler's loop", "Quota counting", "A million providers"):
#
#   bench/sched-loop.sh loop      nova's scheduler loop at W workers, the
#                                 reference then mod_placement, each W on a
#                                 fresh set of allocations; overcommit
#                                 checked after each run; then a move
#   bench/sched-loop.sh usages    GET /usages over CONSUMERS consumers, both
#   bench/sched-loop.sh million   mod_placement alone at each of SIZES
#                                 providers (bench/load-sql.py layout): the
#                                 gate query, nova's query, a claim
#   bench/sched-loop.sh durable   PUT /allocations at c=1 with PostgreSQL's
#                                 default durability (PL_PG_DURABLE=1), both
#
# One private PostgreSQL (scripts/lib-db.sh pg_start) under $BENCH_WORK
# (default /tmp/bench-loop-run.XXXX), one database made by scripts/db-init.sh
# and loaded by SQL; the reference (serve_reference.sh, mod_wsgi 2 x 8) and
# mod_placement (bench/mod-httpd.sh, 2 x 8) one after the other on it.
# Everything is stopped by pid and removed at the end.
#
# Environment: MOD_PLACEMENT (the module; default build/mod_placement.so),
# OUT (raw results, default $BENCH_WORK/results), SERVERS ("ref mod"),
# PROVIDERS (1000), WORKERS ("1 10 50"), RUN_SECONDS (20 per loop run),
# CONSUMERS (100000), SIZES ("1000 100000 1000000"), COUNT (200 timed
# operations), RUN_TIMEOUT (bound of each client run, 600 s), PIN (1: the
# client on CPU 0, PostgreSQL and the servers on CPU 1, so that the
# client's parsing of 569 KB answers does not take the servers' CPU, as
# nova's scheduler runs on hosts of its own; both servers get one core).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${SHARED:-/work/shared}
PY=/usr/bin/python3
export MOD_PLACEMENT=${MOD_PLACEMENT:-$REPO/build/mod_placement.so}
SERVERS=${SERVERS:-ref mod}
PROVIDERS=${PROVIDERS:-1000}
WORKERS=${WORKERS:-1 10 50}
RUN_SECONDS=${RUN_SECONDS:-20}
CONSUMERS=${CONSUMERS:-100000}
SIZES=${SIZES:-1000 100000 1000000}
COUNT=${COUNT:-200}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
NOVA_Q='/allocation_candidates?limit=1000&resources=DISK_GB:10,MEMORY_MB:512,VCPU:1&root_required=!COMPUTE_STATUS_DISABLED'
GATE_Q="/allocation_candidates?$($PY -c 'import sys; sys.path.insert(0, sys.argv[1]); import placement_bench as p; print(p.MAIN_QUERY)' "$SHARED/bench")&limit=1000"

# shellcheck source=../scripts/lib-db.sh
. "$REPO/scripts/lib-db.sh"

mode=${1:?usage: $0 loop|usages|million|durable}
case "$mode" in loop | usages | million | durable) ;; *) echo "unknown mode $mode" >&2; exit 2 ;; esac
[ -f "$MOD_PLACEMENT" ] || { echo "$MOD_PLACEMENT not found (make O=DIR; MOD_PLACEMENT=DIR/mod_placement.so)" >&2; exit 1; }

WORK=${BENCH_WORK:-$(mktemp -d /tmp/bench-loop-run.XXXX)}
mkdir -p "$WORK"
chmod 755 "$WORK"
OUT=${OUT:-$WORK/results}
mkdir -p "$OUT"
REF_PORT=$(pl_free_port)
MOD_PORT=$(pl_free_port)

# PIN=1: pid's threads and its descendants (and those it starts later,
# which inherit it) on CPU cpu
pin_tree() {  # pid cpu
  [ "${PIN:-0}" = 1 ] || return 0
  local child
  taskset -a -p -c "$2" "$1" >/dev/null 2>&1 || true
  for child in $(pgrep -P "$1"); do pin_tree "$child" "$2"; done
}
log() { echo "[$(date -u +%H:%M:%S)] $* (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2; }
cleanup() {
  "$SHARED/conformance/serve_reference.sh" stop "$WORK/ref" >/dev/null 2>&1 || true
  "$REPO/bench/mod-httpd.sh" stop "$WORK/mod" || true
  pg_stop "$WORK/pg" || true
  [ -n "${BENCH_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

if [ "$mode" = durable ]; then export PL_PG_DURABLE=1; fi
pg_start "$WORK/pg" >/dev/null
PG_PID=$(head -1 "$WORK/pg/data/postmaster.pid")
pin_tree "$PG_PID" 1
log "PostgreSQL pid $PG_PID port $PG_PORT, fsync $(PGPASSWORD=placement psql -X -A -t -h 127.0.0.1 -p "$PG_PORT" -U placement -d postgres -c 'SHOW fsync')"
dburl() { echo "postgresql://placement:placement@127.0.0.1:$PG_PORT/$1"; }
psql_db() { PGPASSWORD=placement psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U placement -d "$@"; }

port_of() { if [ "$1" = ref ]; then echo "$REF_PORT"; else echo "$MOD_PORT"; fi; }
start_server() {  # ref|mod DB
  if [ "$1" = ref ]; then
    PLACEMENT_WSGI_PROCESSES=2 PLACEMENT_WSGI_THREADS=8 \
      "$SHARED/conformance/serve_reference.sh" start "$WORK/ref" "$REF_PORT" \
      "postgresql+psycopg2://placement:placement@127.0.0.1:$PG_PORT/$2" >/dev/null
  else
    "$REPO/bench/mod-httpd.sh" start "$WORK/mod" "$MOD_PORT" "$(dburl "$2")" >/dev/null
  fi
  pin_tree "$(cat "$WORK/$1/httpd.pid")" 1
  # first request: the standard classes and traits synced, the code warm
  curl -sf -o /dev/null -H 'x-auth-token: admin' -H 'openstack-api-version: placement 1.36' \
    "http://127.0.0.1:$(port_of "$1")$NOVA_Q"
}
stop_server() {
  if [ "$1" = ref ]; then "$SHARED/conformance/serve_reference.sh" stop "$WORK/ref" >/dev/null
  else "$REPO/bench/mod-httpd.sh" stop "$WORK/mod"; fi
}
client() {  # ref|mod outfile label mode [args...]
  local kind=$1 out=$2 label=$3; shift 3
  local pin=()
  [ "${PIN:-0}" = 1 ] && pin=(taskset -c 0)
  "${pin[@]}" timeout "$RUN_TIMEOUT" "$PY" "$REPO/bench/sched-loop.py" "$@" --label "$label" \
    --url "http://127.0.0.1:$(port_of "$kind")" \
    --httpd-pid "$(cat "$WORK/$kind/httpd.pid")" --db-pid "$PG_PID" | tee -a "$out" | cut -c1-400
}
# on_server ref|mod DB OUTFILE LABEL MODE [ARGS...]: one client run
# against a server started for it on DB, stopped after
on_server() {
  local kind=$1 db=$2
  shift 2
  start_server "$kind" "$db"
  log "$2"
  client "$kind" "$@"
  stop_server "$kind"
}
# (allocations used) per provider and class beyond (total - reserved) * ratio
overcommit() {
  psql_db "$1" -c "SELECT count(*) FROM (SELECT resource_provider_id rp, resource_class_id rc,
      sum(used) AS used FROM allocations GROUP BY 1, 2) a
    JOIN inventories i ON i.resource_provider_id = a.rp AND i.resource_class_id = a.rc
    WHERE a.used > (i.total - i.reserved) * i.allocation_ratio"
}
new_db() {  # name: empty schema, standard classes and traits synced
  # at upstream 8.0.0's head, which the reference can serve too
  PL_DB_HEAD=${PL_DB_HEAD:-422ece571366} "$REPO/scripts/db-init.sh" --recreate "$(dburl "$1")" >/dev/null
  start_server mod "$1" || true   # the candidates query may 200 on nothing
  stop_server mod
}
# After a bulk load, what autovacuum does in a cloud that has run a while:
# ANALYZE alone leaves the visibility map empty, and PostgreSQL then plans
# parallel sequential scans over a freshly loaded million providers where
# it walks an index once the tables are vacuumed (294 ms -> 24 ms).
settle() {  # db
  psql_db "$1" -c "VACUUM ANALYZE" >/dev/null
}
load_computes() {  # db n
  log "loading $2 compute nodes"
  "$PY" "$REPO/bench/load-cloud.py" computes "$2" | psql_db "$1" >/dev/null
  settle "$1"
}

do_loop() {
  local db=placement_loop kind w out=$OUT/loop.txt
  new_db $db
  load_computes $db "$PROVIDERS"
  for kind in $SERVERS; do
    for w in $WORKERS; do
      psql_db $db -c "DELETE FROM allocations" -c "DELETE FROM consumers"
      on_server "$kind" $db "$out" "$kind W=$w" loop --workers "$w" --seconds "$RUN_SECONDS"
      echo "OVERCOMMIT $kind W=$w: $(overcommit $db) (provider, class) pairs over capacity;" \
        "$(psql_db $db -c 'SELECT count(*) FROM consumers') consumers" | tee -a "$out"
    done
    on_server "$kind" $db "$OUT/move.txt" "$kind move" move --count "$COUNT"
  done
}

do_usages() {
  local db=placement_usages kind
  new_db $db
  load_computes $db 1000
  log "loading $CONSUMERS consumers"
  "$PY" "$REPO/bench/load-cloud.py" consumers "$CONSUMERS" --computes 1000 | psql_db $db >/dev/null
  settle $db
  for kind in $SERVERS; do
    on_server "$kind" $db "$OUT/usages.txt" "$kind usages $CONSUMERS" usages --count "$COUNT"
  done
}

do_million() {
  local n db out=$OUT/million.txt
  for n in $SIZES; do
    db=placement_m$n
    new_db "$db"
    log "load-sql.py $n (no nested trees)"
    local t0=$SECONDS
    "$PY" "$REPO/bench/load-sql.py" "$n" --nested-trees 0 | psql_db "$db" >/dev/null
    settle "$db"
    echo "LOAD $n providers: $((SECONDS - t0)) s" | tee -a "$out"
    start_server mod "$db"
    client mod "$out" "mod $n gate" get --count "$COUNT" --path "$GATE_Q" --mv latest
    client mod "$out" "mod $n nova" get --count "$COUNT" --path "$NOVA_Q" --mv 1.36
    client mod "$out" "mod $n claim" claim --count "$COUNT"
    stop_server mod
    psql_db postgres -c "DROP DATABASE $db WITH (FORCE)"
  done
}

do_durable() {
  local db=placement_durable kind
  new_db $db
  load_computes $db "$PROVIDERS"
  for kind in $SERVERS; do
    on_server "$kind" $db "$OUT/durable.txt" "$kind durable" claim --count "$COUNT"
  done
}

"do_$mode"
log "done; raw results in $OUT"
