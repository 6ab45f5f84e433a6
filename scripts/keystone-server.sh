#!/bin/bash
# A private Keystone (Debian's python3-keystone, Zed) for tests, served by a
# private Apache httpd with mod_wsgi on 127.0.0.1. Nothing system-wide is
# used or changed: no /etc/keystone, no keystone service, no system apache.
#
#   scripts/keystone-server.sh start DIR [PORT]   set up (first time) + start
#   scripts/keystone-server.sh stop DIR           stop, wait until gone
#   scripts/keystone-server.sh status DIR         exit 0 if it answers
#
# DIR holds everything: keystone.conf, keystone.sqlite, fernet-keys/,
# credential-keys/, httpd.conf, httpd.pid, keystone.log, error.log and
# access.log (one line per request: client, time, "METHOD PATH PROTO",
# status, bytes, duration; tests count "GET /v3/auth/tokens" lines).
# The first start of a DIR runs keystone-manage (db_sync, fernet_setup,
# credential_setup, bootstrap of admin/admin in RegionOne), then
# scripts/keystone-tool.py setup: roles (reader, member, admin from bootstrap;
# service), projects service and demo, users placement and nova (role service
# on service), demo-member (member on demo), demo-reader (reader on demo),
# the placement service with public/internal/admin endpoints at
# $KS_PLACEMENT_URL, and DIR/env (KS_URL, KS_PORT, every password and
# project, ids) for tests to source. A later start of the same DIR reuses
# database, keys, port and passwords: a Keystone restart, as tests need.
#
# Environment:
#   KS_PLACEMENT_URL     the placement endpoint in the catalog
#                        (default http://127.0.0.1:8780/placement)
#   KS_TOKEN_EXPIRATION  token lifetime in seconds (default 3600); read at
#                        every start, so a restart can shorten it
#   KS_WAIT              seconds to wait for Keystone to answer (default 60)
#   KS_RUN_USER          user the WSGI processes run as when started as root
#                        (default www-data); DIR must be reachable by it
#   APACHE2              the httpd binary (default apache2 in PATH)
# Exit status non-zero (with the tail of the logs) when Keystone does not
# answer in time; httpd is then stopped again.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=/usr/bin/python3
APACHE2=${APACHE2:-$(command -v apache2 || echo /usr/sbin/apache2)}
MODULES_DIR=$(apxs -q LIBEXECDIR 2>/dev/null || echo /usr/lib/apache2/modules)
KS_WSGI=/usr/bin/keystone-wsgi-public   # from python3-keystone
KS_MANAGE=/usr/bin/keystone-manage

usage() { sed -n '2,34p' "$0"; exit 2; }
die() { echo "keystone-server: $*" >&2; exit 1; }

[ $# -ge 2 ] || usage
cmd=$1
mkdir -p "$2"
DIR=$(cd "$2" && pwd)

free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

httpd_pid() {  # the pid of the running httpd of DIR, or nothing
  local pid
  [ -s "$DIR/httpd.pid" ] || return 1
  pid=$(<"$DIR/httpd.pid")
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

answers() {  # Keystone's version document comes back
  [ "$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$1/v3")" = 200 ]
}

stop() {
  local pid i
  pid=$(httpd_pid) || return 0
  # a test may have SIGSTOPped Keystone to play a hung server: TERM would
  # wait for a CONT that never comes
  # shellcheck disable=SC2046
  kill -CONT "$pid" $(ps -o pid= --ppid "$pid") 2>/dev/null
  kill -TERM "$pid" 2>/dev/null || return 0
  # httpd's parent waits for its children and the WSGI daemons to exit
  for ((i = 0; i < 150; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "keystone-server: httpd $pid did not stop, killed" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$DIR/httpd.pid"
}

write_keystone_conf() {
  # Short bcrypt rounds (4, the least) keep password checks cheap: tests log
  # in often and the hashes protect nothing here.
  # SQLite: check_same_thread=false because Keystone may finalize a
  # connection in another thread than the one that opened it (the rollback
  # then fails and the connection keeps its lock).
  # Cache: without it one token validation makes ~1000 queries (1 s); the
  # in-process cache brings it to ~20 ms. Each WSGI process has its own
  # memory cache, and a change made through one process invalidates only its
  # own: so tokens and revocation events are not cached (a revocation is
  # seen at once by every process), nor is the catalog (the placement
  # endpoints created by the set-up, or moved later, are in every token).
  cat >"$DIR/keystone.conf" <<EOF
# written by scripts/keystone-server.sh
[DEFAULT]
log_file = $DIR/keystone.log
use_stderr = false
debug = false

[database]
connection = sqlite:///$DIR/keystone.sqlite?check_same_thread=false
sqlite_synchronous = false

[token]
provider = fernet
expiration = ${KS_TOKEN_EXPIRATION:-3600}
caching = false

[revoke]
caching = false

[catalog]
caching = false

[fernet_tokens]
key_repository = $DIR/fernet-keys/

[fernet_receipts]
key_repository = $DIR/fernet-keys/

[credential]
key_repository = $DIR/credential-keys/

[identity]
password_hash_rounds = 4

[cache]
enabled = true
backend = dogpile.cache.memory
expiration_time = 60
EOF
}

write_httpd_conf() {  # port user-group-lines
  # WSGI daemon processes of ONE thread each: Keystone on SQLite breaks with
  # threads (connections finalized in another thread, "database is locked").
  # Two processes so that two callers are served at once. The application
  # is imported when a daemon starts (process-group + application-group on
  # WSGIScriptAlias), so "answers" means ready.
  cat >"$DIR/httpd.conf" <<EOF
# written by scripts/keystone-server.sh
ServerRoot "$DIR"
DefaultRuntimeDir "$DIR"
PidFile "$DIR/httpd.pid"
ServerName 127.0.0.1
Listen 127.0.0.1:$1
$2

LoadModule mpm_event_module "$MODULES_DIR/mod_mpm_event.so"
LoadModule authz_core_module "$MODULES_DIR/mod_authz_core.so"
LoadModule wsgi_module "$MODULES_DIR/mod_wsgi.so"

StartServers 1
ServerLimit 1
ThreadsPerChild 25
MaxRequestWorkers 25
MinSpareThreads 5
MaxSpareThreads 25
Timeout 60
KeepAlive On

ErrorLog "$DIR/error.log"
LogLevel warn
LogFormat "%h %t \"%r\" %>s %b %Dus" ks
CustomLog "$DIR/access.log" ks

WSGISocketPrefix "$DIR/wsgi"
WSGIDaemonProcess keystone-test processes=2 threads=1 display-name=%{GROUP} home="$DIR" shutdown-timeout=1
WSGIProcessGroup keystone-test
WSGIApplicationGroup %{GLOBAL}
WSGIPassAuthorization On
WSGIScriptAlias / "$KS_WSGI" process-group=keystone-test application-group=%{GLOBAL}
<Directory "$(dirname "$KS_WSGI")">
    <Files "$(basename "$KS_WSGI")">
        Require all granted
    </Files>
</Directory>
EOF
}

manage() {  # keystone-manage with our configuration; output to DIR/manage.log
  local shown=$*
  [ -z "${admin_pw:-}" ] || shown=${shown//$admin_pw/***}   # no password in logs
  echo "+ $(date +%T) keystone-manage $shown" >>"$DIR/manage.log"
  "$KS_MANAGE" --config-file "$DIR/keystone.conf" "$@" >>"$DIR/manage.log" 2>&1 ||
    { tail -20 "$DIR/manage.log" >&2; die "keystone-manage $1 failed (log: $DIR/manage.log)"; }
}

start() {
  local port=${1:-} user group ug="" first=0 t0=$SECONDS
  [ -x "$KS_WSGI" ] || die "python3-keystone is not installed (scripts/install-deps.sh)"
  [ -f "$MODULES_DIR/mod_wsgi.so" ] || die "mod_wsgi is missing (libapache2-mod-wsgi-py3)"
  if [ "$(id -u)" = 0 ]; then
    user=${KS_RUN_USER:-www-data}
    group=$(id -gn "$user")
    ug="User $user
Group $group"
    chmod 755 "$DIR"
    runuser -u "$user" -- test -x "$DIR" ||
      die "$user cannot reach $DIR (make every parent directory searchable)"
  else
    user=$(id -un) group=$(id -gn)
  fi

  [ -f "$DIR/keystone.sqlite" ] || first=1
  if [ -z "$port" ] && [ -f "$DIR/env" ]; then
    port=$(sed -n "s/^KS_PORT='\{0,1\}\([0-9]*\)'\{0,1\}$/\1/p" "$DIR/env")
  fi
  [ -n "$port" ] || port=$(free_port)
  write_keystone_conf
  write_httpd_conf "$port" "$ug"

  if [ "$first" = 1 ]; then
    : >"$DIR/manage.log"
    local admin_pw
    admin_pw=$("$PY" -c 'import secrets; print(secrets.token_hex(12))')
    # The key set-ups do not touch the database: run them beside db_sync.
    manage fernet_setup --keystone-user "$user" --keystone-group "$group" &
    local k1=$!
    manage credential_setup --keystone-user "$user" --keystone-group "$group" &
    local k2=$!
    manage db_sync
    # WAL: a reader (another WSGI process) never blocks a writer.
    "$PY" -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA journal_mode=WAL")' \
      "$DIR/keystone.sqlite" || die "cannot switch $DIR/keystone.sqlite to WAL"
    wait "$k1" || die "fernet_setup failed"
    wait "$k2" || die "credential_setup failed"
    manage bootstrap --bootstrap-password "$admin_pw" \
      --bootstrap-username admin --bootstrap-project-name admin \
      --bootstrap-role-name admin --bootstrap-service-name keystone \
      --bootstrap-region-id RegionOne \
      --bootstrap-admin-url "http://127.0.0.1:$port/v3" \
      --bootstrap-internal-url "http://127.0.0.1:$port/v3" \
      --bootstrap-public-url "http://127.0.0.1:$port/v3"
    # setup reads it from here; DIR/env gets it too
    printf "KS_ADMIN_PASSWORD='%s'\n" "$admin_pw" >"$DIR/env"
  fi
  [ "$(id -u)" != 0 ] || chown -R "$user:$group" "$DIR"

  : >>"$DIR/access.log"
  # keystone-wsgi-public finds its configuration through this variable;
  # the WSGI daemon inherits it from httpd's parent.
  OS_KEYSTONE_CONFIG_DIR=$DIR "$APACHE2" -f "$DIR/httpd.conf" -k start >"$DIR/httpd.out" 2>&1 ||
    { cat "$DIR/httpd.out" >&2; die "httpd did not start"; }
  local deadline=$((SECONDS + ${KS_WAIT:-60}))
  while [ "$SECONDS" -lt "$deadline" ]; do
    answers "$port" && break
    # httpd writes its pid file only once it runs; no pid after 2 s: it died
    if ! httpd_pid >/dev/null && [ "$((SECONDS - t0))" -gt 2 ]; then break; fi
    sleep 0.2
  done
  if ! answers "$port"; then
    echo "keystone-server: Keystone did not answer on 127.0.0.1:$port within ${KS_WAIT:-60}s" >&2
    for f in httpd.out error.log keystone.log; do
      if [ -s "$DIR/$f" ]; then
        { echo "--- $DIR/$f (tail)"; tail -15 "$DIR/$f"; } >&2
      fi
    done
    stop
    exit 1
  fi

  if [ "$first" = 1 ]; then
    # shellcheck disable=SC2030,SC2031
    # shellcheck disable=SC1091
    if ! (set -a; . "$DIR/env"; set +a
          KS_URL=http://127.0.0.1:$port KS_DIR=$DIR \
          KS_PLACEMENT_URL=${KS_PLACEMENT_URL:-http://127.0.0.1:8780/placement} \
          "$PY" "$REPO/scripts/keystone-tool.py" setup "$DIR/env"); then
      stop
      die "creating the test users failed"
    fi
    [ "$(id -u)" != 0 ] || chown "$user:$group" "$DIR/env"
  fi
  echo "keystone-server: Keystone at http://127.0.0.1:$port (pid $(httpd_pid), $((SECONDS - t0))s, env in $DIR/env)"
}

case "$cmd" in
  start) [ $# -le 3 ] || usage
         if pid=$(httpd_pid); then die "already running (pid $pid) in $DIR"; fi
         # a start cut short (Ctrl-C, a failure) leaves nothing running
         started=0
         trap '[ "$started" = 1 ] || stop' EXIT
         trap 'exit 130' INT TERM
         start "${3:-}"
         started=1 ;;
  stop) stop ;;
  status) pid=$(httpd_pid) || exit 1
          port=$(sed -n "s/^KS_PORT='\{0,1\}\([0-9]*\)'\{0,1\}$/\1/p" "$DIR/env")
          answers "$port" ;;
  *) usage ;;
esac
