#!/bin/bash
# Issue 12's figures in one run, on private servers of this machine: the
# gate query at 1,000 providers (c=1 latency, c=10 throughput, server and
# database CPU per request), the gate query with limit=1000 at 100,000
# providers, claims (PUT /allocations) at 1,000 and 100,000, and the wide
# trees; on PostgreSQL and MariaDB, optionally beside the reference.
#
#   bench/scale-report.sh [--reference] [--seconds S] [--keep]
#                         [--phases gate,scale,writes,wide]
#
# Data: bench/load-sql.py (the perf-gate bench's layout: N flat providers
# and N/10 trees of 7), databases p1k / p100k (PostgreSQL), m1k / m100k
# (MariaDB); the 100,000 ones then get a consumer on every flat provider
# (bench/load-sql.py 0 --allocations-only), so that usages are read over
# a cloud in use; the 1,000 ones too once the gate query (as the bench
# asks it: before any claim) is measured. Loading 100,000 takes about a
# minute per database.
# Servers: bench/mod-httpd.sh (2 x 8) with $MOD_PLACEMENT (default
# build/mod_placement.so), one per database; with --reference, upstream
# placement 8.0.0 under mod_wsgi (2 x 8) on its own 1,000-provider
# PostgreSQL database (ref1k), for the gate query.
# Each figure line says what ran; wrk and /proc give the numbers
# (bench/gate-cpu.sh, bench/put-scale.py, bench/wide-trees.py). The host's
# load average is printed with them: compare CPU per request on a busy
# host. Everything is stopped at the end (--keep: left running, with the
# work directory, $WORK, default /tmp/scale-report).
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${SHARED:-$REPO/../shared}
WORK=${WORK:-/tmp/scale-report}
export MOD_PLACEMENT=${MOD_PLACEMENT:-$REPO/build/mod_placement.so}
GATE="resources=VCPU:1,DISK_GB:10,MEMORY_MB:256&member_of=14a5c8a3-5a99-4e8f-88be-00d85fcb1c17&required=HW_CPU_X86_AVX2"
H=(-H 'x-auth-token: admin' -H 'openstack-api-version: placement latest')

reference=0 seconds=20 keep=0 phases=gate,scale,writes,wide
while [ $# -gt 0 ]; do
  case "$1" in
    --reference) reference=1; shift ;;
    --seconds) seconds=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --phases) phases=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "scale-report: unknown argument $1" >&2; exit 2 ;;
  esac
done
want() { [[ ",$phases," == *",$1,"* ]]; }

# shellcheck source=../scripts/lib-db.sh
. "$REPO/scripts/lib-db.sh"
log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# what a --keep run left behind
for d in "$WORK"/h-*; do [ -d "$d" ] && "$REPO/bench/mod-httpd.sh" stop "$d"; done
[ -f "$WORK/ref/httpd.pid" ] && "$SHARED/conformance/serve_reference.sh" stop "$WORK/ref"
pg_stop "$WORK/pg" >/dev/null 2>&1 || true
mysql_stop "$WORK/my" >/dev/null 2>&1 || true
rm -rf "$WORK"
mkdir -p "$WORK"
chmod 755 "$WORK"
servers=()
cleanup() {
  [ "$keep" = 1 ] && { log "left running in $WORK"; return; }
  for d in "${servers[@]}"; do "$REPO/bench/mod-httpd.sh" stop "$d" || true; done
  [ -f "$WORK/ref/httpd.pid" ] && "$SHARED/conformance/serve_reference.sh" stop "$WORK/ref"
  pg_stop "$WORK/pg" || true
  mysql_stop "$WORK/my" || true
  rm -rf "$WORK"
}
trap cleanup EXIT
pg_start "$WORK/pg" >&2
mysql_start "$WORK/my" >&2
export PGPASSWORD=placement

url_of() {  # pgsql|mysql DB
  case "$1" in
    pgsql) echo "postgresql://placement:placement@127.0.0.1:$PG_PORT/$2" ;;
    mysql) echo "mysql://placement:placement@127.0.0.1:$MYSQL_PORT/$2" ;;
  esac
}
load() {  # pgsql|mysql DB PROVIDERS [allocations]
  local kind=$1 db=$2 n=$3
  if [ "$kind" = pgsql ]; then
    "$REPO/bench/load-sql.py" "$n" |
      psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U placement -d "$db"
    [ -z "${4:-}" ] || "$REPO/bench/load-sql.py" 0 --allocations-only |
      psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U placement -d "$db" 2>/dev/null
    psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U placement -d "$db" -c "VACUUM ANALYZE"
  else
    local m=(mariadb --no-defaults -h 127.0.0.1 -P "$MYSQL_PORT" -uplacement -pplacement "$db")
    "$REPO/bench/load-sql.py" "$n" --dialect mysql | "${m[@]}"
    [ -z "${4:-}" ] || "$REPO/bench/load-sql.py" 0 --allocations-only --dialect mysql | "${m[@]}"
    "${m[@]}" -e "ANALYZE TABLE resource_providers, inventories, allocations,
                  resource_provider_traits, resource_provider_aggregates" >/dev/null
  fi
}
serve() {  # pgsql|mysql DB PORT PROVIDERS [allocations]: schema, server, data
  local kind=$1 db=$2 port=$3
  "$REPO/scripts/db-init.sh" --recreate "$(url_of "$kind" "$db")" >/dev/null 2>&1
  "$REPO/bench/mod-httpd.sh" start "$WORK/h-$db" "$port" "$(url_of "$kind" "$db")" >&2
  servers+=("$WORK/h-$db")
  # the standard classes and traits, inserted on first use
  curl -sf -o /dev/null "${H[@]}" "http://127.0.0.1:$port/traits"
  log "loading $4 providers into $db"
  load "$kind" "$db" "$4" "${5:-}" >&2
}
dbpat() {  # pgsql|mysql DB: the database server's processes
  if [ "$1" = pgsql ]; then echo "postgres: placement $2 "; else echo "mariadbd"; fi
}
gate() {  # label port rundir dbpattern connections [extra query]
  local out
  # warm: every child's connections, prepared statements and caches
  wrk -t2 -c4 -d2s "${H[@]}" "http://127.0.0.1:$2/allocation_candidates?$GATE${6:-}" >/dev/null
  out=$("$REPO/bench/gate-cpu.sh" "http://127.0.0.1:$2" "$3/httpd[.]conf|wsgi:placement" \
        "$4" "$seconds" "$5" "${6:-}")
  printf '%-34s c=%-3s p50 %8s  %9s req/s  %s\n' "$1" "$5" \
    "$(awk '$1 == "50%" {print $2}' <<<"$out")" \
    "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" \
    "$(grep '^requests' <<<"$out" | cut -d, -f2-)"
}

echo "# scale-report $(date -u +%FT%TZ) on $(nproc) cores; module $MOD_PLACEMENT"
if want gate || want writes; then
  serve pgsql p1k 28991 1000
  serve mysql m1k 28992 1000
fi
if want scale || want writes; then
  serve pgsql p100k 28993 100000 allocations
  serve mysql m100k 28994 100000 allocations
fi

if want gate; then
  echo "## gate query at 1,000 providers (464 candidates, 245 KB)"
  for c in 1 10; do
    gate "mod_placement, PostgreSQL" 28991 "$WORK/h-p1k" "$(dbpat pgsql p1k)" $c
    gate "mod_placement, MariaDB" 28992 "$WORK/h-m1k" "$(dbpat mysql m1k)" $c
  done
  if [ "$reference" = 1 ]; then
    psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U placement -d postgres \
      -c "CREATE DATABASE ref1k" >/dev/null
    PLACEMENT_WSGI_PROCESSES=2 PLACEMENT_WSGI_THREADS=8 \
      "$SHARED/conformance/serve_reference.sh" start "$WORK/ref" 28995 \
      "postgresql+psycopg2://placement:placement@127.0.0.1:$PG_PORT/ref1k" >&2
    curl -sf -o /dev/null "${H[@]}" "http://127.0.0.1:28995/traits"
    load pgsql ref1k 1000 >&2
    for c in 1 10; do
      gate "placement 8.0.0, PostgreSQL" 28995 "$WORK/ref" "$(dbpat pgsql ref1k)" $c
    done
    "$SHARED/conformance/serve_reference.sh" stop "$WORK/ref"
  fi
fi

if want scale; then
  echo "## gate query with limit=1000 at 100,000 providers (170,000 with the trees)"
  gate "mod_placement, PostgreSQL" 28993 "$WORK/h-p100k" "$(dbpat pgsql p100k)" 1 "&limit=1000"
  gate "mod_placement, MariaDB" 28994 "$WORK/h-m100k" "$(dbpat mysql m100k)" 1 "&limit=1000"
  echo "## other queries with limit=1000 at 100,000 providers, c=1 p50"
  for q in 'resources=VCPU:1,MEMORY_MB:512,DISK_GB:10&required=!COMPUTE_STATUS_DISABLED' \
           'resources=VCPU:40' 'resources=VCPU:40,DISK_GB:3000'; do
    for port in 28993 28994; do
      printf '%-5s %-70s %s\n' "$([ $port = 28993 ] && echo pgsql || echo mysql)" "$q" \
        "$(wrk -t1 -c1 -d"$seconds"s --latency "${H[@]}" \
             "http://127.0.0.1:$port/allocation_candidates?$q&limit=1000" |
           awk '$1 == "50%" {print $2}')"
    done
  done
fi

if want writes; then
  # a cloud in use at both sizes: a consumer on every flat provider
  "$REPO/bench/load-sql.py" 0 --allocations-only |
    psql -X -q -h 127.0.0.1 -p "$PG_PORT" -U placement -d p1k 2>/dev/null
  "$REPO/bench/load-sql.py" 0 --allocations-only --dialect mysql |
    mariadb --no-defaults -h 127.0.0.1 -P "$MYSQL_PORT" -uplacement -pplacement m1k >/dev/null
  echo "## PUT /allocations, new consumers one after the other (bench/put-scale.py)"
  for kind in flat nested; do
    for db in p1k p100k m1k m100k; do
      case $db in p1k) port=28991 ;; m1k) port=28992 ;; p100k) port=28993 ;; m100k) port=28994 ;; esac
      k=pgsql; [ "${db:0:1}" = m ] && k=mysql
      printf '%-6s %-6s ' "$kind" "$db"
      "$REPO/bench/put-scale.py" "http://127.0.0.1:$port" --kind $kind --n 50 --repeat 2 \
        --rss-match "$WORK/h-$db/httpd[.]conf" --db-match "$(dbpat $k $db)" 2>&1 |
        grep -v '^{' | tr '\n' ' ' | sed 's/  */ /g'
      echo
    done
  done
fi

if want wide; then
  echo "## wide trees: 2 roots x 64 children x 1 unit (bench/wide-trees.py)"
  "$REPO/scripts/db-init.sh" --recreate "$(url_of pgsql wide)" >/dev/null 2>&1
  "$REPO/bench/mod-httpd.sh" start "$WORK/h-wide" 28996 "$(url_of pgsql wide)" >&2
  servers+=("$WORK/h-wide")
  "$REPO/bench/wide-trees.py" "http://127.0.0.1:28996" --roots 2 --repeat 5 \
    --access-log "$WORK/h-wide/access.log"
fi
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
