#!/bin/bash
# Serve the Placement API from this checkout in the foreground (`make run`).
#
#   PORT    port on 127.0.0.1 (default 8780)
#   PREFIX  mount point (default empty: the API at /; PREFIX=/placement mounts
#           it there)
#   DB      database URL, see scripts/db-init.sh (default
#           sqlite:///<repo>/var/placement.sqlite)
#   MOD_PLACEMENT  the module (default <repo>/build/mod_placement.so)
#   LOGLEVEL       httpd LogLevel (default warn)
#
# Writes var/run/httpd.conf, prepares the database (scripts/db-init.sh: the
# schema is loaded only into a database without it), then runs httpd in the
# foreground (mpm_event, noauth2). The error log and the access log go to this
# terminal (stderr / stdout). Ctrl-C stops it.
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PORT=${PORT:-8780}
PREFIX=${PREFIX:-}
PREFIX=/${PREFIX#/}
[ "$PREFIX" = / ] || PREFIX=${PREFIX%/}
DB=${DB:-sqlite://$REPO/var/placement.sqlite}
MOD=${MOD_PLACEMENT:-$REPO/build/mod_placement.so}
case "$MOD" in /*) ;; *) MOD=$PWD/$MOD ;; esac
APACHE2=${APACHE2:-$(command -v apache2 || echo /usr/sbin/apache2)}
MODULES_DIR=$(apxs -q LIBEXECDIR 2>/dev/null || echo /usr/lib/apache2/modules)
RUN=$REPO/var/run

[ -f "$MOD" ] || { echo "run.sh: $MOD not found: run make first" >&2; exit 1; }
case "$PORT" in ''|*[!0-9]*) echo "run.sh: bad PORT '$PORT'" >&2; exit 1 ;; esac
mkdir -p "$RUN"

"$REPO/scripts/db-init.sh" "$DB"
dbd=$("$REPO/scripts/db-init.sh" --dbd "$DB")

user_group=""
if [ "$(id -u)" = 0 ]; then
  # httpd will not serve requests as root: its children run as www-data,
  # which must be able to write the SQLite file and its directory.
  user_group="User www-data
Group www-data"
  case "$DB" in
    sqlite:*)
      f=$(sed -n 's/^DBDParams "\(.*\)"$/\1/p' <<<"$dbd")
      chown www-data: "$(dirname "$f")" "$f"
      if ! runuser -u www-data -- test -w "$f"; then
        echo "run.sh: www-data cannot write $f (is a parent directory private?);" \
             "use DB=sqlite:///some/shared/dir/placement.sqlite" >&2
        exit 1
      fi ;;
  esac
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
LoadModule placement_module "$MOD"

StartServers 2
ServerLimit 2
ThreadsPerChild 16
MaxRequestWorkers 32
MinSpareThreads 4
MaxSpareThreads 32

ErrorLog /dev/stderr
LogLevel ${LOGLEVEL:-warn}
LogFormat "%h %t \"%r\" %>s %b %Dus" pl
CustomLog /dev/stdout pl

$dbd
DBDPersist On
DBDMin 0
DBDKeep 4
DBDMax 16
DBDExptime 60

<Location "$PREFIX">
    SetHandler placement
    PlacementAuthStrategy noauth2
    Require all granted
</Location>
CONF

url="http://127.0.0.1:$PORT${PREFIX%/}"
echo "mod_placement on $url/ (database $DB; config $RUN/httpd.conf; logs on this terminal; Ctrl-C stops)"
echo "  try: curl -s -H 'x-auth-token: admin' -H 'openstack-api-version: placement latest' $url/resource_providers"
exec "$APACHE2" -f "$RUN/httpd.conf" -DFOREGROUND
