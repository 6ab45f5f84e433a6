#!/bin/bash
# Upstream placement 8.0.0 (Debian's python3-placement, /usr/bin/placement-api)
# behind keystonemiddleware auth_token, under a private httpd + mod_wsgi on
# 127.0.0.1, mounted at /placement: the reference the keystone-mode tests
# are checked against (t/keystone/run --reference).
#
#   t/keystone/reference-placement.sh start DIR PORT   (fresh SQLite database)
#   t/keystone/reference-placement.sh stop DIR
#
# Keystone coordinates come from the environment (scripts/keystone-server.sh
# writes them to its env file): KS_URL, KS_PLACEMENT_PASSWORD. Extra lines
# for [keystone_authtoken] (e.g. "token_cache_time = 2") in
# REF_AUTHTOKEN_EXTRA, extra sections in REF_CONF_EXTRA. www_authenticate_uri
# is $KS_URL/v3 unless REF_AUTHTOKEN_EXTRA says otherwise or
# REF_NO_WWW_URI=1. REF_AUTH_STRATEGY=noauth2 serves noauth2 instead. Logs: DIR/error.log (placement's own log goes there too),
# DIR/access.log.
set -euo pipefail

APACHE2=${APACHE2:-$(command -v apache2 || echo /usr/sbin/apache2)}
MODULES_DIR=$(apxs -q LIBEXECDIR 2>/dev/null || echo /usr/lib/apache2/modules)

[ $# -ge 2 ] || { sed -n '2,18p' "$0"; exit 2; }
cmd=$1
mkdir -p "$2"
DIR=$(cd "$2" && pwd)

stop() {
  local pid i
  [ -s "$DIR/httpd.pid" ] || return 0
  pid=$(<"$DIR/httpd.pid")
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 150; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$DIR/httpd.pid"
}

start() {
  local port=$1 ug="" www="" deadline
  [ -x /usr/bin/placement-api ] || { echo "reference: python3-placement is not installed" >&2; exit 1; }
  if [ "$(id -u)" = 0 ]; then
    ug=$'User www-data\nGroup www-data'
    chmod 755 "$DIR"
  fi
  [ "${REF_NO_WWW_URI:-0}" = 1 ] || www="www_authenticate_uri = $KS_URL/v3"
  rm -f "$DIR/placement.sqlite"
  cat >"$DIR/placement.conf" <<EOF
[DEFAULT]
debug = False
use_stderr = True

[api]
auth_strategy = ${REF_AUTH_STRATEGY:-keystone}

[placement_database]
connection = sqlite:///$DIR/placement.sqlite
sync_on_startup = False

[keystone_authtoken]
auth_type = password
auth_url = $KS_URL
$www
username = placement
password = $KS_PLACEMENT_PASSWORD
project_name = service
user_domain_name = Default
project_domain_name = Default
http_connect_timeout = 5
${REF_AUTHTOKEN_EXTRA:-}

${REF_CONF_EXTRA:-}
EOF
  placement-manage --config-file "$DIR/placement.conf" db sync >"$DIR/db-sync.log" 2>&1 ||
    { tail "$DIR/db-sync.log" >&2; exit 1; }
  cat >"$DIR/httpd.conf" <<EOF
ServerRoot "$DIR"
DefaultRuntimeDir "$DIR"
PidFile "$DIR/httpd.pid"
ServerName 127.0.0.1
Listen 127.0.0.1:$port
$ug
LoadModule mpm_event_module "$MODULES_DIR/mod_mpm_event.so"
LoadModule authz_core_module "$MODULES_DIR/mod_authz_core.so"
LoadModule wsgi_module "$MODULES_DIR/mod_wsgi.so"
StartServers 1
ServerLimit 1
ThreadsPerChild 25
MaxRequestWorkers 25
MinSpareThreads 5
MaxSpareThreads 25
ErrorLog "$DIR/error.log"
LogLevel warn
LogFormat "%h %t \"%r\" %>s %b %Dus" ref
CustomLog "$DIR/access.log" ref
WSGISocketPrefix "$DIR/wsgi"
WSGIDaemonProcess placement-ref processes=1 threads=4 display-name=%{GROUP}
WSGIProcessGroup placement-ref
WSGIApplicationGroup %{GLOBAL}
WSGIPassAuthorization On
WSGIScriptAlias /placement /usr/bin/placement-api process-group=placement-ref application-group=%{GLOBAL}
<Directory /usr/bin>
    <Files placement-api>
        Require all granted
    </Files>
</Directory>
EOF
  [ "$(id -u)" != 0 ] || chown -R www-data: "$DIR"
  OS_PLACEMENT_CONFIG_DIR=$DIR "$APACHE2" -f "$DIR/httpd.conf" -k start
  deadline=$((SECONDS + 60))
  until [ "$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$port/placement/")" = 200 ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "reference placement did not answer; $DIR/error.log:" >&2
      tail -20 "$DIR/error.log" >&2
      stop
      exit 1
    fi
    sleep 0.2
  done
}

case "$cmd" in
  start) [ $# = 3 ] || { sed -n '2,18p' "$0"; exit 2; }
         stop; start "$3" ;;
  stop) stop ;;
  *) sed -n '2,18p' "$0"; exit 2 ;;
esac
