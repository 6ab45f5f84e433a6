#!/bin/bash
# Instructions an httpd child executes for one warm gate query (the bench's
# MAIN_QUERY), counted by callgrind: a measure of the module's own work
# that the host's drift does not move (wall-clock figures here vary by a
# third from one minute to the next). Kernel time (the network, waiting
# for the database) is not in it.
#
#   bench/gate-callgrind.sh MODULE.so DB_URL [TOP]
#
# Runs apache2 -X under valgrind twice on DB_URL (scripts/db-init.sh's
# form, the schema and data already there), serving 2 then 42 gate queries
# on one keep-alive connection, and prints the difference divided by 40:
# the instructions per request of the handler and of the TOP (default 25)
# functions with the most, inclusive. Needs valgrind; takes about a minute.
set -euo pipefail
mod=$(cd "$(dirname "${1:?MODULE.so}")" && pwd)/$(basename "$1")
db=${2:?DB_URL}; top=${3:-25}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d /tmp/gate-callgrind.XXXXXX)
chmod 777 "$work"
port=$((30000 + $$ % 20000))
Q="resources=VCPU:1,DISK_GB:10,MEMORY_MB:256&member_of=14a5c8a3-5a99-4e8f-88be-00d85fcb1c17&required=HW_CPU_X86_AVX2"

# the inclusive instructions of every function, one "name count" a line
profile() {  # N
  local d=$work/n$1 args=() i vpid
  MOD_PLACEMENT=$mod "$here/mod-httpd.sh" conf "$d" "$port" "$db"
  chmod 777 "$d"
  : >"$d/cg.out"; chmod 666 "$d/cg.out"  # the child writes it as www-data
  MALLOC_ARENA_MAX=2 valgrind --vgdb=no --tool=callgrind \
      --callgrind-out-file="$d/cg.out" --toggle-collect=pl_handler \
      apache2 -X -f "$d/httpd.conf" >"$d/valgrind.log" 2>&1 &
  vpid=$!
  for i in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    sleep 0.5
  done
  for i in $(seq "$1"); do
    args+=(-o /dev/null "http://127.0.0.1:$port/allocation_candidates?$Q")
  done
  curl -s -H 'x-auth-token: admin' -H 'openstack-api-version: placement latest' "${args[@]}"
  kill -TERM "$vpid"; wait "$vpid" 2>/dev/null || true
  callgrind_annotate --inclusive=yes "$d/cg.out" 2>/dev/null |
    awk '$1 ~ /^[0-9,]+$/ && NF >= 3 { v = $1; gsub(",", "", v)
           f = $NF; if (f ~ /^\[/) f = $(NF - 1); sub(/.*:/, "", f)
           if (!(f in seen)) { seen[f] = 1; print f, v } }' | sort -k1,1
}

profile 2 >"$work/two"
profile 42 >"$work/many"
join "$work/two" "$work/many" |
  awk '{ printf "%10d %s\n", ($3 - $2) / 40, $1 }' | sort -rn |
  awk -v top="$top" '$2 == "pl_handler" { print $1, "per request (pl_handler)" }
    $2 !~ /^(0x|TOTALS$|start_thread$|clone$|ap_|pl_handler$)|>$/ && n < top {
      print; n++ }'
rm -rf "$work"
