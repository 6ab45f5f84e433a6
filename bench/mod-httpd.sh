#!/bin/bash
# Serve mod_placement for the benchmark: httpd mpm_event, 2 processes x 8
# threads (the reference's 2 x 8 mod_wsgi daemon), noauth2 at /.
#
#   bench/mod-httpd.sh start RUNDIR PORT DB_URL    (DB_URL as scripts/db-init.sh)
#   bench/mod-httpd.sh stop  RUNDIR
#   bench/mod-httpd.sh conf  RUNDIR PORT DB_URL    (only write RUNDIR/httpd.conf)
#
# MOD_PLACEMENT is the module (default build/mod_placement.so of this checkout);
# EXTRA_CONF, if set, is appended to the generated httpd.conf (experiments).
# The database must already have the schema (scripts/db-init.sh URL). Listens on
# 127.0.0.1 only; stop uses the pid file in RUNDIR.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODULES_DIR=$(apxs -q LIBEXECDIR 2>/dev/null || echo /usr/lib/apache2/modules)
cmd=${1:?usage: $0 start|conf RUNDIR PORT DB_URL | stop RUNDIR}
run=${2:?RUNDIR missing}

stop() {
  [ -f "$run/httpd.pid" ] || return 0
  local pid i=0
  pid=$(cat "$run/httpd.pid")
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  rm -f "$run/httpd.pid"
}

case "$cmd" in
  stop) stop; exit 0 ;;
  start|conf) port=${3:?PORT missing}; db=${4:?DB_URL missing} ;;
  *) echo "unknown command $cmd" >&2; exit 2 ;;
esac

mod=${MOD_PLACEMENT:-$REPO/build/mod_placement.so}
[ -f "$mod" ] || { echo "$mod not found (make O=...)" >&2; exit 1; }
mkdir -p "$run"
run=$(cd "$run" && pwd)
chmod 755 "$run"
stop
dbd=$("$REPO/scripts/db-init.sh" --dbd "$db")

cat >"$run/httpd.conf" <<CONF
# Written by bench/mod-httpd.sh
ServerRoot "$run"
DefaultRuntimeDir "$run"
PidFile "$run/httpd.pid"
ServerName 127.0.0.1
Listen 127.0.0.1:$port
User www-data
Group www-data
ErrorLog "$run/error.log"
LogLevel warn
LogFormat "%h \"%r\" %>s %b %D" timed
CustomLog "$run/access.log" timed

LoadModule mpm_event_module "$MODULES_DIR/mod_mpm_event.so"
LoadModule authz_core_module "$MODULES_DIR/mod_authz_core.so"
LoadModule dbd_module "$MODULES_DIR/mod_dbd.so"
LoadModule placement_module "$mod"

# 2 processes x 8 threads, both started up front and never recycled.
StartServers 2
ServerLimit 2
ThreadsPerChild 8
MaxRequestWorkers 16
MinSpareThreads 8
MaxSpareThreads 16
MaxConnectionsPerChild 0
# as conf/placement.conf suggests: freed request memory kept per thread
MaxMemFree 1024
KeepAlive On
KeepAliveTimeout 5
# wrk keeps its connections for the whole run: closing one every 100
# requests (the default) shows up in its counts as read errors
MaxKeepAliveRequests 0
Timeout 120

$dbd
DBDPersist On
DBDMin 1
DBDKeep 8
DBDMax 8
DBDExptime 300

<Location />
    SetHandler placement
    PlacementAuthStrategy noauth2
    Require all granted
</Location>
${EXTRA_CONF:-}
CONF
[ "$cmd" = conf ] && exit 0

# as conf/placement.conf suggests: two malloc arenas per child
MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} apache2 -f "$run/httpd.conf" -k start
i=0
until curl -sf -o /dev/null "http://127.0.0.1:$port/"; do
  i=$((i + 1))
  if [ $i -gt 150 ]; then echo "mod_placement did not come up; see $run/error.log" >&2; exit 1; fi
  sleep 0.2
done
echo "mod_placement on http://127.0.0.1:$port/ (run dir $run, pid $(cat "$run/httpd.pid"))"
