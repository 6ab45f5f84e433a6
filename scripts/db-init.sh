#!/bin/bash
# Prepare a database for mod_placement, or print the mod_dbd lines for it.
#
#   scripts/db-init.sh URL              create the database if it does not
#                                       exist; load sql/<dialect>/schema.sql
#                                       unless it has a resource_providers table
#   scripts/db-init.sh --recreate URL   drop the database (sqlite: delete the
#                                       file) first, then as above: empty + schema
#   scripts/db-init.sh --dbd URL        print the DBDriver and DBDParams lines
#   scripts/db-init.sh --exists URL     exit 0 if the database exists, 3 (with
#                                       a message) if it does not, 1 if the
#                                       server cannot be reached. SQLite: its
#                                       directory must exist (SQLite makes a
#                                       missing file in it on first open)
#
# URL forms, SQLAlchemy's as in placement.conf's [placement_database]
# connection and mod-placement-manage --db-url (user, password and host may
# be %-encoded):
#   sqlite:////abs/path/to/file.sqlite           four slashes: an absolute path
#   sqlite:///rel/path/file.sqlite               three: relative to the current
#                                                  directory (made absolute here,
#                                                  as httpd's is /)
#   postgresql://user:pass@host:port/dbname       (also postgres://, pgsql://,
#                                                  postgresql+psycopg2://)
#   postgresql://user:pass@/dbname?host=/sockdir  unix socket directory; a host
#                                                  beginning with %2F works too
#   mysql://user:pass@host:port/dbname            (also mariadb://, mysql+pymysql://)
#   mysql://user:pass@/dbname?socket=/path/sock   unix socket
# Defaults: host 127.0.0.1, port 5432 / 3306, user placement, no password.
#
# The schema is made by mod-placement-manage `db sync` (PL_DB_HEAD, default
# head: a082b8bb98d0; docs/operations.md), found as PL_MANAGE, beside
# MOD_PLACEMENT, in build/ or on PATH. A database that already has a
# revision (upstream's `placement-manage db sync` made it, say) is served
# as it is. Clients used to create or drop the database: psql, mariadb
# (or mysql).
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "db-init: $*" >&2; exit 1; }

urldecode() { local s=${1//+/ }; printf '%b' "${s//%/\\x}"; }

# parse_url URL: sets DIALECT (sqlite|pgsql|mysql), SCHEMA_DIR_NAME, DB_PATH,
# DB_USER, DB_PASS, DB_HOST, DB_PORT, DB_NAME, DB_SOCK
parse_url() {
  local url=$1 scheme rest query="" auth="" hostport path kv k v
  case "$url" in *://*) ;; *) die "not a URL: $url" ;; esac
  scheme=${url%%://*}
  rest=${url#*://}
  DB_USER=""; DB_PASS=""; DB_HOST=""; DB_PORT=""; DB_NAME=""; DB_SOCK=""
  DB_PATH=""
  case "$scheme" in
    sqlite|sqlite3|sqlite+*)
      DIALECT=sqlite; SCHEMA_DIR_NAME=sqlite
      # SQLAlchemy's rule: what follows sqlite:/// is the path, so
      # sqlite:////abs is /abs and sqlite:///rel is ./rel
      DB_PATH=${rest%%\?*}
      case "$DB_PATH" in
        */) die "no SQLite file in $url (the path ends in /)" ;;
        /?*) DB_PATH=${DB_PATH#/} ;;
        *) die "no SQLite file in $url: sqlite:////absolute/path or sqlite:///relative/path" ;;
      esac
      case "$DB_PATH" in /*) ;; *) DB_PATH=$PWD/$DB_PATH ;; esac
      return ;;
    postgresql|postgres|pgsql|postgresql+*)
      DIALECT=pgsql; SCHEMA_DIR_NAME=postgresql; DB_PORT=5432 ;;
    mysql|mariadb|mysql+*)
      DIALECT=mysql; SCHEMA_DIR_NAME=mysql; DB_PORT=3306 ;;
    *) die "unknown database type '$scheme' in $url" ;;
  esac
  case "$rest" in *\?*) query=${rest#*\?}; rest=${rest%%\?*} ;; esac
  case "$rest" in */*) path=${rest#*/}; rest=${rest%%/*} ;; *) path="" ;; esac
  case "$rest" in *@*) auth=${rest%@*}; hostport=${rest##*@} ;; *) hostport=$rest ;; esac
  if [ -n "$auth" ]; then
    DB_USER=$(urldecode "${auth%%:*}")
    case "$auth" in *:*) DB_PASS=$(urldecode "${auth#*:}") ;; esac
  fi
  case "$hostport" in
    *:*) DB_HOST=$(urldecode "${hostport%%:*}"); DB_PORT=${hostport##*:} ;;
    *)   DB_HOST=$(urldecode "$hostport") ;;
  esac
  DB_NAME=$(urldecode "$path")
  local IFS='&'
  for kv in $query; do
    k=${kv%%=*}; v=$(urldecode "${kv#*=}")
    case "$k" in
      host) DB_HOST=$v ;;
      port) DB_PORT=$v ;;
      socket|sock|unix_socket) DB_SOCK=$v ;;
      *) ;;  # charset= and friends are for other clients
    esac
  done
  [ -n "$DB_USER" ] || DB_USER=placement
  [ -n "$DB_HOST" ] || DB_HOST=127.0.0.1
  [ -n "$DB_NAME" ] || die "no database name in $url"
  case "$DB_NAME" in *[!A-Za-z0-9_]*) die "database name must be [A-Za-z0-9_]: $DB_NAME" ;; esac
  case "$DB_PORT" in ''|*[!0-9]*) die "bad port in $url" ;; esac
}

print_dbd() {
  case "$DIALECT" in
    sqlite)
      echo "DBDriver sqlite3"
      echo "DBDParams \"$DB_PATH\"" ;;
    pgsql)
      local p="host=$DB_HOST port=$DB_PORT user=$DB_USER"
      [ -z "$DB_PASS" ] || p="$p password=$DB_PASS"
      echo "DBDriver pgsql"
      echo "DBDParams \"$p dbname=$DB_NAME\"" ;;
    mysql)
      local p
      if [ -n "$DB_SOCK" ]; then
        p="sock=$DB_SOCK user=$DB_USER"
      else
        p="host=$DB_HOST port=$DB_PORT user=$DB_USER"
      fi
      [ -z "$DB_PASS" ] || p="$p pass=$DB_PASS"
      # no silent reconnect: it would hide a new session without the
      # module's settings (docs/reliability.md)
      p="$p reconnect=0"
      echo "DBDriver mysql"
      echo "DBDParams \"$p dbname=$DB_NAME\"" ;;
  esac
}

# --- per-dialect client helpers: q DB SQL prints tab-separated rows ---------
pg_q() {
  local db=$1; shift
  PGPASSWORD=$DB_PASS PGCONNECT_TIMEOUT=10 psql -X -q -A -t -v ON_ERROR_STOP=1 \
    -h "$DB_HOST" -p "$DB_PORT" -U "$DB_USER" -d "$db" "$@"
}
MYSQL_CLIENT=""
my_q() {
  local db=$1; shift
  local conn
  if [ -n "$DB_SOCK" ]; then
    conn=(--socket="$DB_SOCK")
  else
    conn=(--protocol=TCP --host="$DB_HOST" --port="$DB_PORT")
  fi
  MYSQL_PWD=$DB_PASS "$MYSQL_CLIENT" --no-defaults --connect-timeout=10 -N -B \
    "${conn[@]}" --user="$DB_USER" ${db:+--database="$db"} "$@"
}

need() { command -v "$1" >/dev/null 2>&1 || die "$1 not found (scripts/install-deps.sh installs it)"; }

# --- the schema: mod-placement-manage (tools/manage/) does the work ---------
# The tool: PL_MANAGE, else beside MOD_PLACEMENT's module, else this
# checkout's build/, else the one installed beside this script (the Debian
# package's /usr/share/mod-placement/scripts -> /usr/bin), else on PATH.
find_manage() {
  local c
  for c in "${PL_MANAGE:-}" \
           "${MOD_PLACEMENT:+$(dirname "${MOD_PLACEMENT:-.}")/mod-placement-manage}" \
           "$REPO/${O:-build}/mod-placement-manage" "$REPO/build/mod-placement-manage" \
           "$REPO/../../bin/mod-placement-manage"; do
    [ -n "$c" ] && [ -x "$c" ] && { MANAGE=$c; return; }
  done
  MANAGE=$(command -v mod-placement-manage) ||
    die "mod-placement-manage not found (make tools builds it; PL_MANAGE names one)"
}

# The tool reads the very DBDriver/DBDParams lines the module gets.
manage() {
  local conf rc=0
  conf=$(mktemp "${TMPDIR:-/tmp}/db-init.XXXXXX") || die "mktemp failed"
  print_dbd >"$conf"
  "$MANAGE" --config "$conf" "$@" || rc=$?
  rm -f "$conf"
  return $rc
}

# A database with a revision (or made before alembic: a resource_providers
# table) is left as it is: served as it is, upgraded by the operator's
# `db sync` only. An empty one gets the schema at PL_DB_HEAD (default the
# newest, a082b8bb98d0; 422ece571366 for one placement 8.0.0 shares).
has_schema() {
  local v
  v=$(manage db version) || die "cannot read the database's revision"
  [ "$v" != None ]
}

load_schema() {
  manage db sync "${PL_DB_HEAD:-head}" ||
    die "mod-placement-manage db sync ${PL_DB_HEAD:-head} failed"
}

ensure_db() {  # $1 = 1 to drop first
  case "$DIALECT" in
    pgsql) pg_q postgres -c "SELECT 1" >/dev/null ||
             die "cannot connect to PostgreSQL at $DB_HOST:$DB_PORT as $DB_USER" ;;
    mysql) my_q "" -e "SELECT 1" >/dev/null ||
             die "cannot connect to MySQL at ${DB_SOCK:-$DB_HOST:$DB_PORT} as $DB_USER" ;;
  esac
  case "$DIALECT" in
    sqlite)
      if [ "$1" = 1 ]; then
        rm -f "$DB_PATH" "$DB_PATH-journal" "$DB_PATH-wal" "$DB_PATH-shm"
      fi
      mkdir -p "$(dirname "$DB_PATH")" ;;
    pgsql)
      if [ "$1" = 1 ]; then
        pg_q postgres -c "DROP DATABASE IF EXISTS \"$DB_NAME\" WITH (FORCE)"
      fi
      if [ "$(pg_q postgres -c "SELECT count(*) FROM pg_database WHERE datname = '$DB_NAME'")" != 1 ]; then
        pg_q postgres -c "CREATE DATABASE \"$DB_NAME\""
      fi ;;
    mysql)
      if [ "$1" = 1 ]; then
        my_q "" -e "DROP DATABASE IF EXISTS \`$DB_NAME\`"
      fi
      my_q "" -e "CREATE DATABASE IF NOT EXISTS \`$DB_NAME\` CHARACTER SET utf8mb4" ;;
  esac
}

db_exists() {
  case "$DIALECT" in
    sqlite) [ -d "$(dirname "$DB_PATH")" ] ;;
    pgsql)
      pg_q postgres -c "SELECT 1" >/dev/null ||
        die "cannot connect to PostgreSQL at $DB_HOST:$DB_PORT as $DB_USER"
      [ "$(pg_q postgres -c "SELECT count(*) FROM pg_database WHERE datname = '$DB_NAME'")" = 1 ] ;;
    mysql)
      my_q "" -e "SELECT 1" >/dev/null ||
        die "cannot connect to MySQL at ${DB_SOCK:-$DB_HOST:$DB_PORT} as $DB_USER"
      [ "$(my_q "" -e "SELECT count(*) FROM information_schema.schemata WHERE schema_name = '$DB_NAME'")" = 1 ] ;;
  esac
}

mode=init
case "${1:-}" in
  --dbd) mode=dbd; shift ;;
  --recreate) mode=recreate; shift ;;
  --exists) mode=exists; shift ;;
  -h|--help) sed -n '2,36p' "$0"; exit 0 ;;
esac
[ $# -eq 1 ] || { echo "usage: $0 [--dbd|--recreate|--exists] URL" >&2; exit 2; }
parse_url "$1"

if [ "$mode" = dbd ]; then
  print_dbd
  exit 0
fi

case "$DIALECT" in
  sqlite) ;;
  pgsql) need psql ;;
  mysql)
    if command -v mariadb >/dev/null 2>&1; then MYSQL_CLIENT=mariadb
    else need mysql; MYSQL_CLIENT=mysql; fi ;;
esac

if [ "$mode" = exists ]; then
  db_exists && exit 0
  case "$DIALECT" in
    sqlite) echo "db-init: the directory of $DB_PATH does not exist" >&2 ;;
    pgsql)  echo "db-init: PostgreSQL at $DB_HOST:$DB_PORT has no database \"$DB_NAME\"" >&2 ;;
    mysql)  echo "db-init: MySQL at ${DB_SOCK:-$DB_HOST:$DB_PORT} has no database \"$DB_NAME\"" >&2 ;;
  esac
  exit 3
fi

find_manage
ensure_db "$([ "$mode" = recreate ] && echo 1 || echo 0)"
if has_schema; then
  [ "$mode" = recreate ] || echo "db-init: $DIALECT database already has the schema, left as it is" >&2
else
  load_schema
fi
