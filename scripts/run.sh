#!/bin/bash
# Serve the Placement API from this checkout in the foreground (`make run`).
#
#   PORT    port on 127.0.0.1 (default 8780)
#   PREFIX  mount point (default empty: the API at /; PREFIX=/placement mounts
#           it there)
#   DB      database URL, SQLAlchemy's as in placement.conf (see
#           scripts/db-init.sh): sqlite:////abs/file (four slashes) or
#           sqlite:///rel/file (relative to the current directory; make run's
#           is the checkout). Default sqlite:///<repo>/var/placement.sqlite
#           (that is, four slashes before the absolute <repo>).
#   CREATE_DB=1    create the database when it does not exist (a PostgreSQL
#                  or MySQL database, or the directory of an SQLite file);
#                  without it a missing database is an error. A missing
#                  SQLite file in an existing directory is always created.
#
# As root, httpd's children run as www-data, which must write the SQLite file
# and its directory (journal, WAL). run.sh changes the owner only of what it
# made itself or of the checkout's own var/: a directory you name through DB
# that www-data cannot write is refused with a message, its owner unchanged.
#   MOD_PLACEMENT  the module (default <repo>/build/mod_placement.so)
#   LOGLEVEL       httpd LogLevel (default warn)
#   PL_RUN_DIR     where the configuration, pid and lock files go (default
#                  <repo>/var/run; the test runs that serve the shipped
#                  configuration give each its own)
#
# One instance per checkout: while one runs (var/run/run.lock is held, or
# var/run/httpd.pid names a live httpd of var/run/httpd.conf) a second one
# refuses with exit status 1 and touches nothing. Otherwise: writes
# var/run/httpd.conf, prepares the database (scripts/db-init.sh: the schema is
# loaded only into a database without it), then runs httpd in the foreground
# (mpm_event, noauth2) as its child. The error log and the access log go to
# this terminal (stderr / stdout). Ctrl-C, TERM or HUP stop httpd before the
# script ends, and httpd also gets a TERM if the script is killed outright
# (setpriv --pdeathsig): httpd never outlives it.
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${PORT:-8780}
PREFIX=${PREFIX:-}
PREFIX=/${PREFIX#/}
[ "$PREFIX" = / ] || PREFIX=${PREFIX%/}
DB=${DB:-sqlite:///$REPO/var/placement.sqlite}
MOD=${MOD_PLACEMENT:-$REPO/build/mod_placement.so}
case "$MOD" in /*) ;; *) MOD=$PWD/$MOD ;; esac
APACHE2=${APACHE2:-$(command -v apache2 || echo /usr/sbin/apache2)}
MODULES_DIR=$(apxs -q LIBEXECDIR 2>/dev/null || echo /usr/lib/apache2/modules)
RUN=${PL_RUN_DIR:-$REPO/var/run}

[ -f "$MOD" ] || { echo "run.sh: $MOD not found: run make first" >&2; exit 1; }
case "$PORT" in ''|*[!0-9]*) echo "run.sh: bad PORT '$PORT'" >&2; exit 1 ;; esac
mkdir -p "$RUN"

# --- one instance per checkout ------------------------------------------------
# live_httpd: the pid in var/run/httpd.pid if that process is alive and is an
# httpd started with this checkout's var/run/httpd.conf
live_httpd() {
  local pid
  pid=$(cat "$RUN/httpd.pid" 2>/dev/null) || return 1
  case "$pid" in ''|*[!0-9]*) return 1 ;; esac
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qxF "$RUN/httpd.conf" || return 1
  echo "$pid"
}
refuse() {
  local port pid
  pid=$(live_httpd || true)
  port=$(sed -n 's/^Listen 127\.0\.0\.1://p' "$RUN/httpd.conf" 2>/dev/null || true)
  echo "run.sh: mod_placement is already running from this checkout" \
       "(${1}httpd pid ${pid:-not yet known}, port ${port:-?}, config $RUN/httpd.conf);" \
       "stop it first (Ctrl-C where it runs, or kill ${2:-$pid}). Nothing was changed." >&2
  exit 1
}
exec 9>>"$RUN/run.lock"
if ! flock -n 9; then
  other=$(cat "$RUN/run.pid" 2>/dev/null || true)
  refuse "${other:+run.sh pid $other, }" "$other"
fi
if live_httpd >/dev/null; then
  refuse "" ""
fi
echo $$ >"$RUN/run.pid"

# --- from here on, httpd (once started) stops when the script does ------------
httpd_pid=""
stop_httpd() {  # TERM, wait up to 10 s, then KILL it and its children
  local pid=$httpd_pid
  [ -n "$pid" ] || return 0
  httpd_pid=""
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "run.sh: httpd $pid did not stop in 10 s, killed" >&2
    pkill -KILL -P "$pid" 2>/dev/null || true
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}
on_exit() {
  stop_httpd
  rm -f "$RUN/run.pid"
}
trap on_exit EXIT
on_signal() {
  trap - EXIT INT TERM HUP
  echo "run.sh: SIG$1, stopping httpd" >&2
  on_exit
  kill -s "$1" $$
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
trap 'on_signal HUP' HUP

if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "run.sh: 127.0.0.1:$PORT is in use by another program; pick another port: make run PORT=..." >&2
  exit 1
fi

# --- the database -------------------------------------------------------------
# As root an SQLite database must be writable by www-data (httpd's children);
# decided before anything is created. sq_file: the file; sq_chown: what
# run.sh may give to www-data (its own var/, what it makes itself).
sq_file="" sq_chown=()
if [ "$(id -u)" = 0 ]; then
  case "$DB" in
    sqlite:*|sqlite+*)
      dbd=$("$REPO/scripts/db-init.sh" --dbd "$DB") || exit 1
      sq_file=$(sed -n 's/^DBDParams "\(.*\)"$/\1/p' <<<"$dbd")
      sq_dir=$(dirname "$sq_file")
      if [ "$sq_dir" = "$REPO/var" ] || [ ! -e "$sq_dir" ]; then
        sq_chown+=("$sq_dir")      # the checkout's own, or made below
        [ -e "$sq_file" ] && sq_chown+=("$sq_file")
      elif ! runuser -u www-data -- test -w "$sq_dir" -a -x "$sq_dir"; then
        echo "run.sh: as root httpd runs as www-data, which cannot write $sq_dir" \
             "(SQLite writes its journal beside the file), and run.sh does not change" \
             "the owner of a directory you name. Use a directory www-data can write" \
             "(mkdir $sq_dir/placement && chown www-data: $sq_dir/placement, then" \
             "DB=sqlite:///$sq_dir/placement/placement.sqlite), or make run as another user." \
             "Nothing was changed." >&2
        exit 1
      elif [ -e "$sq_file" ] && ! runuser -u www-data -- test -w "$sq_file"; then
        echo "run.sh: as root httpd runs as www-data, which cannot write $sq_file;" \
             "run.sh does not change the owner of a file you name:" \
             "chown www-data: $sq_file, or make run as another user. Nothing was changed." >&2
        exit 1
      fi
      [ -e "$sq_file" ] || sq_chown+=("$sq_file")   # made below: ours
      ;;
  esac
fi
if [ "${CREATE_DB:-0}" != 1 ]; then
  rc=0
  "$REPO/scripts/db-init.sh" --exists "$DB" || rc=$?
  case "$rc" in
    0) ;;
    3) echo "run.sh: the database of $DB does not exist. Create it, or let run.sh create it" \
            "with the schema: make run DB='$DB' CREATE_DB=1" >&2
       exit 1 ;;
    *) exit 1 ;;
  esac
fi
"$REPO/scripts/db-init.sh" "$DB"
dbd=$("$REPO/scripts/db-init.sh" --dbd "$DB")

user_group=""
if [ "$(id -u)" = 0 ]; then
  # httpd will not serve requests as root: its children run as www-data,
  # which must be able to write the SQLite file and its directory.
  user_group="User www-data
Group www-data"
  if [ -n "$sq_file" ]; then
    [ "${#sq_chown[@]}" = 0 ] || chown www-data: "${sq_chown[@]}"
    if ! runuser -u www-data -- test -w "$sq_file"; then
      echo "run.sh: www-data cannot write $sq_file (is a parent directory private?);" \
           "use DB=sqlite:////some/shared/dir/placement.sqlite" >&2
      exit 1
    fi
  fi
fi

cat >"$RUN/httpd.conf" <<CONF
# Written by scripts/run.sh; regenerated on every start.
ServerRoot "$RUN"
DefaultRuntimeDir "$RUN"
PidFile "$RUN/httpd.pid"
ServerName 127.0.0.1
Listen 127.0.0.1:$PORT
$user_group

LoadModule mpm_event_module "$MODULES_DIR/mod_mpm_event.so"
LoadModule authz_core_module "$MODULES_DIR/mod_authz_core.so"
LoadModule dbd_module "$MODULES_DIR/mod_dbd.so"
LoadModule reqtimeout_module "$MODULES_DIR/mod_reqtimeout.so"
LoadModule placement_module "$MOD"

# Slow clients (docs/operations.md "Slow clients"). httpd 2.4 gives a
# connection a worker thread from its first byte until its request header
# is whole, however slowly the header comes: threads are what a slowloris
# attack uses up. So many threads, all started at once (1,024: about 70 MB
# of RSS in all, 100 MB while 900 slow clients hold them), in few children
# (each has its own caches and up to DBDMax database connections: a
# request waits for one, the others wait for bytes). A
# header must come within 10 s (20 s while it keeps coming at 500 B/s), a
# body likewise; a kept-alive connection waits in the event MPM's
# listener, not in a thread, 5 s at most. Past about 1,000 slow clients
# only a proxy in front helps (request buffering, per-client limits).
# TRACE would echo X-Auth-Token.
RequestReadTimeout header=10-20,MinRate=500 body=20,MinRate=500
Timeout 30
KeepAlive On
KeepAliveTimeout 5
TraceEnable Off

StartServers 4
ServerLimit 4
ThreadLimit 256
ThreadsPerChild 256
MaxRequestWorkers 1024
MinSpareThreads 256
MaxSpareThreads 1024
# connections a child takes beyond its threads: kept-alive ones waiting
# for their next request (httpd's default)
AsyncRequestWorkerFactor 2

ErrorLog /dev/stderr
LogLevel ${LOGLEVEL:-warn}
LogFormat "%a \"%r\" status: %>s len: %B microversion: %{pl-microversion}n [%{pl-global-request-id}n %{pl-request-id}n %{pl-user-id}n %{pl-project-id}n] %{pl-route}n %Dus" placement
CustomLog /dev/stdout placement

$dbd
DBDPersist On
DBDMin 0
DBDKeep 4
DBDMax 16
DBDExptime 60

<Location "$PREFIX">
    SetHandler placement
    PlacementAuthStrategy noauth2
    # At most this many allocation candidates per request, with or without
    # limit (docs/directives.md): one request stays within tens of MB.
    PlacementMaxAllocationCandidates 10000
    Require all granted
</Location>
CONF

# --- serve ------------------------------------------------------------------------
url="http://127.0.0.1:$PORT${PREFIX%/}"
echo "mod_placement on $url/ (database $DB; config $RUN/httpd.conf; logs on this terminal; Ctrl-C stops)"
echo "  try: curl -s -H 'x-auth-token: admin' -H 'openstack-api-version: placement latest' $url/resource_providers"
# setpriv: a TERM reaches httpd even if this script is killed with SIGKILL.
# fd 9 (the lock) stays with the script.
setpriv --pdeathsig TERM "$APACHE2" -f "$RUN/httpd.conf" -DFOREGROUND 9>&- &
httpd_pid=$!
rc=0
wait "$httpd_pid" || rc=$?
httpd_pid=""
exit "$rc"
