#!/bin/bash
# A private three-node MariaDB Galera cluster on loopback, for tests.
#
#   scripts/galera-cluster.sh start DIR   three datadirs under DIR/n1..n3
#   scripts/galera-cluster.sh stop DIR    kill all three (by pid)
#   scripts/galera-cluster.sh status DIR  wsrep state of each node
#   scripts/galera-cluster.sh restart-node DIR N  node N killed (SIGKILL,
#                                         a crash) and started again
#
# start: mariadb-install-db into DIR/n1/data, node 1 bootstrapped with
# --wsrep-new-cluster, user placement/placement (all privileges) made on
# it, then nodes 2 and 3 started one after the other on empty datadirs,
# each receiving the state from node 1 by rsync SST. Every node listens on
# 127.0.0.1 only, on free ports: SQL, Galera replication (gmcast), IST and
# SST, and a unix socket DIR/nN/sock. Waits until every node reports
# wsrep_cluster_size=3 and wsrep_local_state_comment=Synced. Writes
# DIR/cluster.env (GALERA_PORT1..3, GALERA_SOCK1..3: source it) and prints
# the SQL ports. Nothing uses /etc or the system service; mariadbd runs as
# the calling user (mysql when root: DIR's parents must be searchable by
# it). On any failure start stops what it started and
# returns 1. Logs: DIR/nN/mariadbd.log.
#
# stop: TERM to each node's process group (pids recorded at start: each
# node is a session leader with its SST helpers), KILL after 20 s. Works
# on a half-started cluster too.
# Environment: PL_DB_WAIT (seconds a node may take to start, default 90).
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib-db.sh
. "$REPO/scripts/lib-db.sh"

PROVIDER=${GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}
WAIT=${PL_DB_WAIT:-90}
# As root the nodes run as mysql: the joiner's rsync daemon, started by
# root, would write the datadir as nobody.
if [ "$(id -u)" = 0 ]; then NODE_USER=mysql; else NODE_USER=$(id -un); fi

die() { echo "galera-cluster: $*" >&2; return 1; }

sql() {  # node-dir SQL: run as root over the node's socket
  "$(pl_mysql_client)" --no-defaults --socket="$1/sock" --user=root \
    --batch --skip-column-names -e "$2"
}

write_cnf() {  # node-dir n sql-port gcomm-port ist-port sst-port cluster-address
  local d=$1
  cat >"$d/my.cnf" <<EOF
[mysqld]
user=$NODE_USER
datadir=$d/data
socket=$d/sock
port=$3
bind-address=127.0.0.1
pid-file=$d/mariadbd.pid
log-error=$d/mariadbd.log
tmpdir=$d
skip-name-resolve
skip-log-bin
max-connections=200
innodb-buffer-pool-size=64M
innodb-log-file-size=32M
innodb-flush-log-at-trx-commit=0
innodb-doublewrite=0
binlog-format=ROW
default-storage-engine=InnoDB
innodb-autoinc-lock-mode=2
wsrep-on=ON
wsrep-provider=$PROVIDER
wsrep-provider-options="gmcast.listen_addr=tcp://127.0.0.1:$4;ist.recv_addr=127.0.0.1:$5;gcache.size=32M"
wsrep-cluster-name=pl_galera_test
wsrep-cluster-address=$7
wsrep-node-name=node$2
wsrep-node-address=127.0.0.1
wsrep-node-incoming-address=127.0.0.1:$3
wsrep-sst-method=rsync
wsrep-sst-receive-address=127.0.0.1:$6
wsrep-slave-threads=2
EOF
}

launch() {  # node-dir [extra args]: mariadbd in its own session
  local d=$1; shift
  setsid /usr/sbin/mariadbd --defaults-file="$d/my.cnf" "$@" \
    </dev/null >>"$d/launcher.out" 2>&1 &
  echo $! >"$d/launcher.pid"
}

wait_synced() {  # node-dir [size]: Synced (and the cluster that large)
  local d=$1 size=${2:-} i pid
  pid=$(cat "$d/launcher.pid")
  for ((i = 0; i < WAIT * 4; i++)); do
    if [ "$(wsrep wsrep_local_state_comment "$d")" = Synced ] &&
       { [ -z "$size" ] || [ "$(wsrep wsrep_cluster_size "$d")" = "$size" ]; }; then
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || { die "node $d exited:"; tail -20 "$d/mariadbd.log" >&2; return 1; }
    sleep 0.25
  done
  die "node $d not Synced after $WAIT s:"; tail -20 "$d/mariadbd.log" >&2
  return 1
}

wsrep() {  # variable node-dir: a wsrep status value, or nothing
  sql "$2" "SHOW GLOBAL STATUS LIKE '$1'" 2>/dev/null | cut -f2
}

cluster_start() {
  local dir=$1 n d ports=() gaddr=""
  mkdir -p "$dir" || return 1
  dir=$(cd "$dir" && pwd)
  [ ! -e "$dir/cluster.env" ] || die "$dir already holds a cluster (stop it first)" || return 1
  [ -r "$PROVIDER" ] || die "no Galera provider at $PROVIDER (galera-4)" || return 1
  # four ports per node: SQL, gcomm, IST, SST; twelve different ones
  local all=" " p
  while [ "$(wc -w <<<"$all")" -lt 12 ]; do
    p=$(pl_free_port) || return 1
    [[ "$all" == *" $p "* ]] || all="$all$p "
  done
  read -ra p <<<"$all"
  for n in 1 2 3; do
    ports[n]="${p[4 * n - 4]} ${p[4 * n - 3]} ${p[4 * n - 2]} ${p[4 * n - 1]}"
  done
  for n in 1 2 3; do
    read -r _ g _ _ <<<"${ports[n]}"
    gaddr="$gaddr${gaddr:+,}127.0.0.1:$g"
  done
  for n in 1 2 3; do
    d=$dir/n$n
    mkdir -p "$d/data" || return 1
    # shellcheck disable=SC2086
    write_cnf "$d" "$n" ${ports[n]} "gcomm://$gaddr"
  done
  {
    for n in 1 2 3; do
      read -r p _ _ _ <<<"${ports[n]}"
      echo "GALERA_PORT$n=$p"
      echo "GALERA_SOCK$n=$dir/n$n/sock"
    done
  } >"$dir/cluster.env"

  [ "$NODE_USER" = "$(id -un)" ] || chown -R "$NODE_USER:" "$dir/n1" "$dir/n2" "$dir/n3" || return 1
  if ! mariadb-install-db --no-defaults --datadir="$dir/n1/data" --user="$NODE_USER" \
        --auth-root-authentication-method=normal --skip-test-db \
        --skip-name-resolve >"$dir/n1/install-db.log" 2>&1; then
    die "mariadb-install-db failed:"; tail -20 "$dir/n1/install-db.log" >&2
    cluster_stop "$dir"; return 1
  fi
  launch "$dir/n1" --wsrep-new-cluster
  wait_synced "$dir/n1" 1 || { cluster_stop "$dir"; return 1; }
  if ! sql "$dir/n1" "
        CREATE USER 'placement'@'localhost' IDENTIFIED BY 'placement';
        CREATE USER 'placement'@'%' IDENTIFIED BY 'placement';
        GRANT ALL PRIVILEGES ON *.* TO 'placement'@'localhost' WITH GRANT OPTION;
        GRANT ALL PRIVILEGES ON *.* TO 'placement'@'%' WITH GRANT OPTION;" \
        >>"$dir/n1/install-db.log" 2>&1; then
    die "could not create the placement user on node 1"
    cluster_stop "$dir"; return 1
  fi
  # one joiner at a time: each takes a full SST from node 1
  for n in 2 3; do
    launch "$dir/n$n"
    wait_synced "$dir/n$n" "$n" || { cluster_stop "$dir"; return 1; }
  done
  for n in 1 2 3; do
    wait_synced "$dir/n$n" 3 || { cluster_stop "$dir"; return 1; }
  done
  # shellcheck disable=SC1091
  . "$dir/cluster.env"
  echo "galera-cluster: 3 nodes Synced on 127.0.0.1:$GALERA_PORT1,$GALERA_PORT2,$GALERA_PORT3"
}

# The node's process group (the launcher pid is mariadbd itself, a
# session leader when setsid did not need to fork; otherwise its child).
node_pids() {  # node-dir: pids of the node, launcher first
  local d=$1 p
  for p in $(cat "$d/launcher.pid" "$d/mariadbd.pid" 2>/dev/null); do
    kill -0 "$p" 2>/dev/null && echo "$p"
  done | sort -u
}

cluster_stop() {
  local dir=$1 n p pids=() i alive
  [ -d "$dir" ] || return 0
  for n in 1 2 3; do
    for p in $(node_pids "$dir/n$n"); do
      pids+=("$p")
      # the whole group: SST helpers (rsync daemon) go too
      kill -TERM -- "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
    done
  done
  for ((i = 0; i < 80; i++)); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.25
  done
  for p in "${pids[@]}"; do
    if kill -0 "$p" 2>/dev/null; then
      echo "galera-cluster: pid $p did not stop, killed" >&2
      kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null
    fi
  done
  rm -f "$dir/cluster.env"
  return 0
}

# A node's crash and return: its process group killed, the node started
# again on its datadir (it recovers its position and rejoins by IST, or
# SST); returns once the cluster is 3 nodes Synced again.
node_restart() {  # dir n
  local d=$1/n$2 p i
  for p in $(node_pids "$d"); do
    kill -KILL -- "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null
  done
  for ((i = 0; i < 80; i++)); do
    [ -z "$(node_pids "$d")" ] && break
    sleep 0.25
  done
  launch "$d"
  wait_synced "$d" 3
}

cluster_status() {
  local dir=$1 n
  for n in 1 2 3; do
    echo "node$n: size=$(wsrep wsrep_cluster_size "$dir/n$n") state=$(wsrep wsrep_local_state_comment "$dir/n$n")"
  done
}

case "${1:-}" in
  start) [ $# = 2 ] || { echo "usage: $0 start DIR" >&2; exit 2; }
         cluster_start "$2" ;;
  stop) [ $# = 2 ] || { echo "usage: $0 stop DIR" >&2; exit 2; }
        cluster_stop "$2" ;;
  status) [ $# = 2 ] || { echo "usage: $0 status DIR" >&2; exit 2; }
          cluster_status "$2" ;;
  restart-node) [ $# = 3 ] || { echo "usage: $0 restart-node DIR N" >&2; exit 2; }
                node_restart "$2" "$3" ;;
  *) sed -n '2,26p' "$0"; exit 2 ;;
esac
