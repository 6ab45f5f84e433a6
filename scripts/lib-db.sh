# shellcheck shell=bash
# Private PostgreSQL and MariaDB servers in temporary directories, for tests.
# Source this file, then:
#
#   pg_start DIR     initdb in DIR/data, listen on DIR (unix socket) and on
#                    127.0.0.1:<free port>; role placement/placement (superuser)
#                    and a database "placement". Exports PG_DIR, PG_PORT,
#                    PG_SOCKDIR (= DIR).  pg_stop DIR stops it.
#   mysql_start DIR  mariadb-install-db in DIR/data, mariadbd on DIR/sock and
#                    127.0.0.1:<free port>; user placement/placement with all
#                    privileges and a database "placement". Exports MYSQL_DIR,
#                    MYSQL_PORT, MYSQL_SOCK (= DIR/sock). mysql_stop DIR stops it;
#                    mysql_kill DIR SIGKILLs it, mysql_restart DIR starts it
#                    again on the same datadir and port.
#
# Nothing here uses the system services or /etc configuration. As root,
# PostgreSQL runs as the "postgres" user (DIR is chowned to it and every parent
# directory must be searchable by it, as mktemp -d under /tmp after chmod 755);
# mariadbd runs as the calling user. Start-up waits at most PL_DB_WAIT seconds
# (default 60). Logs: DIR/postgres.log, DIR/mariadbd.log. Functions return
# non-zero (and print the log tail) on failure; they never exit the caller.

PG_BINDIR=${PG_BINDIR:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}

# A free port below the kernel's ephemeral range: one the kernel picks
# for bind(0) is free now, but any outgoing connection may take it before
# the server binds it (a Galera joiner once failed so, its SQL port taken
# during another node's state transfer).
pl_free_port() {
  /usr/bin/python3 -c '
import random, socket
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for _ in range(200):
    port = random.randrange(10000, max(low, 10001))
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
    except OSError:
        continue
    finally:
        s.close()
    print(port)
    break
else:
    raise SystemExit("no free port")
'
}

# run a command as the PostgreSQL owner (postgres when we are root)
pl_pg_as() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

pg_start() {
  local dir=$1 port
  [ -x "$PG_BINDIR/initdb" ] || { echo "pg_start: no initdb under ${PG_BINDIR:-/usr/lib/postgresql/*/bin}" >&2; return 1; }
  mkdir -p "$dir" || return 1
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" = 0 ]; then
    chown postgres: "$dir" || return 1
    if ! runuser -u postgres -- test -w "$dir"; then
      echo "pg_start: user postgres cannot write $dir (a parent directory is not searchable?)" >&2
      return 1
    fi
  fi
  if ! pl_pg_as "$PG_BINDIR/initdb" -D "$dir/data" -U postgres --auth-local=trust \
        --auth-host=scram-sha-256 -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
    echo "pg_start: initdb failed:" >&2; tail -20 "$dir/initdb.log" >&2; return 1
  fi
  port=$(pl_free_port) || return 1
  # PL_PG_DURABLE=1 (benchmarks of writes, issue 26): PostgreSQL's default
  # durability, fsync and synchronous_commit on, so a COMMIT waits for its flush.
  local durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  [ "${PL_PG_DURABLE:-0}" = 1 ] && durability="-c fsync=on -c synchronous_commit=on -c full_page_writes=on"
  if ! pl_pg_as "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w \
        -t "${PL_DB_WAIT:-60}" -o "-k $dir -p $port -c listen_addresses=127.0.0.1 $durability -c max_connections=200" \
        start >"$dir/pg_ctl.log" 2>&1; then
    echo "pg_start: postgres did not start:" >&2; tail -20 "$dir/postgres.log" >&2
    pl_pg_as "$PG_BINDIR/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1
    return 1
  fi
  for _ in $(seq 1 "${PL_DB_WAIT:-60}"); do
    pl_pg_as "$PG_BINDIR/pg_isready" -q -h "$dir" -p "$port" && break
    sleep 1
  done
  if ! pl_pg_as "$PG_BINDIR/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d postgres \
        -c "CREATE ROLE placement LOGIN SUPERUSER PASSWORD 'placement'" \
        -c "CREATE DATABASE placement OWNER placement" >>"$dir/pg_ctl.log" 2>&1; then
    echo "pg_start: could not create the placement role:" >&2; tail -5 "$dir/pg_ctl.log" >&2
    pg_stop "$dir"; return 1
  fi
  export PG_DIR=$dir PG_PORT=$port PG_SOCKDIR=$dir
  echo "pg_start: PostgreSQL on 127.0.0.1:$port and $dir/.s.PGSQL.$port"
}

# Restart the PostgreSQL of DIR as an operator's maintenance does (a fast
# shutdown: sessions ended, then the same options); returns once it
# answers again.
pg_restart() {
  local dir=$1
  pl_pg_as "$PG_BINDIR/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -m fast -w \
    -t "${PL_DB_WAIT:-60}" restart >>"$dir/pg_ctl.log" 2>&1
}

pg_stop() {
  local dir=$1
  [ -f "$dir/data/postmaster.pid" ] || return 0
  pl_pg_as "$PG_BINDIR/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
    pl_pg_as "$PG_BINDIR/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
  [ ! -f "$dir/data/postmaster.pid" ]
}

pl_mysql_client() {
  if command -v mariadb >/dev/null 2>&1; then echo mariadb; else echo mysql; fi
}

# mariadbd on DIR/data, DIR/sock and 127.0.0.1:PORT, in its own session;
# returns once it answers. The port is kept in DIR/port for mysql_restart.
mysql_launch() {  # dir port
  local dir=$1 port=$2 pid
  setsid /usr/sbin/mariadbd --no-defaults --user="$(id -un)" --datadir="$dir/data" \
    --socket="$dir/sock" --port="$port" --bind-address=127.0.0.1 \
    --pid-file="$dir/mariadbd.pid" --log-error="$dir/mariadbd.log" --tmpdir="$dir" \
    --skip-log-bin --skip-name-resolve --innodb-buffer-pool-size=64M \
    --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --max-connections=200 \
    </dev/null >/dev/null 2>&1 &
  pid=$!
  # not a job of the caller's shell: no "Killed" note after mysql_kill
  disown "$pid" 2>/dev/null || true
  echo "$pid" >"$dir/launcher.pid"
  echo "$port" >"$dir/port"
  for _ in $(seq 1 $((${PL_DB_WAIT:-60} * 4))); do
    if mariadb-admin --no-defaults --socket="$dir/sock" --user=root ping >/dev/null 2>&1; then
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "mysql_launch: mariadbd exited:" >&2; tail -20 "$dir/mariadbd.log" >&2; return 1
    fi
    sleep 0.25
  done
  echo "mysql_launch: mariadbd does not answer:" >&2; tail -20 "$dir/mariadbd.log" >&2
  return 1
}

mysql_start() {
  local dir=$1 port client
  command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] ||
    { echo "mysql_start: mariadbd not found" >&2; return 1; }
  mkdir -p "$dir" || return 1
  dir=$(cd "$dir" && pwd)
  client=$(pl_mysql_client)
  if ! mariadb-install-db --no-defaults --datadir="$dir/data" --user="$(id -un)" \
        --auth-root-authentication-method=normal --skip-test-db \
        --skip-name-resolve >"$dir/install-db.log" 2>&1; then
    echo "mysql_start: mariadb-install-db failed:" >&2; tail -20 "$dir/install-db.log" >&2; return 1
  fi
  port=$(pl_free_port) || return 1
  mysql_launch "$dir" "$port" || { mysql_stop "$dir"; return 1; }
  if ! "$client" --no-defaults --socket="$dir/sock" --user=root -e "
        CREATE USER 'placement'@'localhost' IDENTIFIED BY 'placement';
        CREATE USER 'placement'@'%' IDENTIFIED BY 'placement';
        GRANT ALL PRIVILEGES ON *.* TO 'placement'@'localhost' WITH GRANT OPTION;
        GRANT ALL PRIVILEGES ON *.* TO 'placement'@'%' WITH GRANT OPTION;
        CREATE DATABASE placement;" >>"$dir/install-db.log" 2>&1; then
    echo "mysql_start: mariadbd not ready or user creation failed:" >&2
    tail -20 "$dir/mariadbd.log" >&2
    mysql_stop "$dir"; return 1
  fi
  export MYSQL_DIR=$dir MYSQL_PORT=$port MYSQL_SOCK=$dir/sock
  echo "mysql_start: MariaDB on 127.0.0.1:$port and $dir/sock"
}

# SIGKILL the mariadbd of DIR (a crash, for fault tests); returns once it
# is gone. mysql_restart DIR starts it again on the same datadir and port
# (InnoDB recovers; with the test servers' innodb-flush-log-at-trx-commit=0
# the last second of commits may be lost).
mysql_kill() {
  local dir=$1 pid
  pid=$(cat "$dir/mariadbd.pid" 2>/dev/null || cat "$dir/launcher.pid" 2>/dev/null) ||
    { echo "mysql_kill: no pid under $dir" >&2; return 1; }
  kill -KILL "$pid" 2>/dev/null || return 1
  for _ in $(seq 1 80); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.05
  done
  return 1
}

mysql_restart() {
  local dir=$1
  [ -s "$dir/port" ] || { echo "mysql_restart: no $dir/port (not started by mysql_start)" >&2; return 1; }
  mysql_launch "$dir" "$(cat "$dir/port")"
}

mysql_stop() {
  local dir=$1 pid
  pid=$(cat "$dir/mariadbd.pid" 2>/dev/null || cat "$dir/launcher.pid" 2>/dev/null || true)
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  mariadb-admin --no-defaults --socket="$dir/sock" --user=root shutdown >/dev/null 2>&1 ||
    kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 120); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.25
  done
  kill -KILL "$pid" 2>/dev/null
  return 0
}
