#!/bin/bash
# A small real OpenStack on this machine, loopback only (issue 24): ONE
# Apache httpd serves Keystone (mod_wsgi, /identity), nova's compute API
# (mod_wsgi, /compute) and mod_placement (LoadModule, /placement) side by
# side, as DevStack lays them out; beside it PostgreSQL (or MariaDB),
# RabbitMQ, Glance (images, file store), Neutron (the server alone, ML2
# without agents: nova asks it for the ports of a server even when it
# has none), nova-conductor, nova-scheduler and two nova-compute services
# with fake virt drivers (scripts/cloud/cloud_fake.py): cloud-a, a small
# host, and cloud-b, a small host with a child provider holding VGPU.
#
#   scripts/cloud/cloud.sh start DIR    set up DIR, start everything; returns
#                                       once a server can be booted
#   scripts/cloud/cloud.sh stop DIR     stop everything started in DIR
#   scripts/cloud/cloud.sh status DIR   exit 0 if every process runs
#   scripts/cloud/cloud.sh run DIR      start, print how to use it, wait;
#                                       Ctrl-C (or TERM) stops it (make cloud)
#   scripts/cloud/cloud.sh stop-service DIR NAME
#                                       stop one process (nova-compute-a ...:
#                                       a test deletes a host's service)
#
# Environment:
#   CLOUD_DB       pgsql (default) or mysql: the one database server of all
#   CLOUD_POLICY   zed (default: placement 8.0.0's rule defaults; nova has the
#                  admin and service roles) or current (placement's current
#                  release: scope and new defaults enforced; nova has the
#                  service role only)
#   REFERENCE=1    upstream placement 8.0.0 (python3-placement, mod_wsgi) at
#                  /placement instead of the module (CLOUD_POLICY zed only)
#   MOD_PLACEMENT  the module (default build/mod_placement.so)
#   CLOUD_B_RELEASE  the nova release whose newer libvirt traits cloud-b
#                  reports (scripts/cloud/cloud_traits.py): 2026.1 (default)
#                  or zed (default with REFERENCE=1: placement 8.0.0 refuses
#                  the newer ones). Kept in DIR/nova/compute-b.release, which
#                  the driver reads at each resource update: write another
#                  release there to move cloud-b to it.
#   CLOUD_VERBOSE=1  debug logs of every service
#
# Everything lives in DIR: configuration, databases, logs (DIR/log), pid
# files (DIR/pids), DIR/env (ports, passwords, ids for tests) and
# DIR/openrc, DIR/openrc-demo (for the openstack client). Nothing under /etc
# is read or written and no system service is used: every process gets its
# own --config-file. As root, the WSGI daemons run as www-data and
# PostgreSQL as postgres: DIR's parents must be searchable by them.
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
APACHE2=${APACHE2:-$(command -v apache2 || echo /usr/sbin/apache2)}
MODULES_DIR=$(apxs -q LIBEXECDIR 2>/dev/null || echo /usr/lib/apache2/modules)
MOD=${MOD_PLACEMENT:-$REPO/build/mod_placement.so}
case "$MOD" in /*) ;; *) MOD=$PWD/$MOD ;; esac
CLOUD_DB=${CLOUD_DB:-pgsql}
CLOUD_POLICY=${CLOUD_POLICY:-zed}
REFERENCE=${REFERENCE:-0}
[ "$REFERENCE" = 1 ] || REFERENCE=0
if [ "$REFERENCE" = 1 ]; then
  CLOUD_B_RELEASE=${CLOUD_B_RELEASE:-zed}
else
  CLOUD_B_RELEASE=${CLOUD_B_RELEASE:-2026.1}
fi
# shellcheck source=SCRIPTDIR/../lib-db.sh
. "$REPO/scripts/lib-db.sh"

usage() { sed -n '2,44p' "$0"; exit 2; }
die() { echo "cloud: $*" >&2; exit 1; }
say() { echo "cloud: $(date +%T) $*"; }

[ $# -eq 2 ] || { [ $# -eq 3 ] && [ "$1" = stop-service ]; } || usage
cmd=$1
mkdir -p "$2"
DIR=$(cd "$2" && pwd)
LOG=$DIR/log
PIDS=$DIR/pids
SVC=$HERE/service.py

case "$CLOUD_DB" in pgsql|mysql) ;; *) die "CLOUD_DB must be pgsql or mysql" ;; esac
case "$CLOUD_POLICY" in zed|current) ;; *) die "CLOUD_POLICY must be zed or current" ;; esac
[[ "$CLOUD_B_RELEASE" =~ ^(zed|20[0-9][0-9]\.[12])$ ]] || die "CLOUD_B_RELEASE must be zed or a release such as 2026.1"
[ "$REFERENCE" = 0 ] || [ "$CLOUD_POLICY" = zed ] ||
  die "REFERENCE=1 needs CLOUD_POLICY=zed: placement 8.0.0 has the Zed rule defaults only"

# --- processes ----------------------------------------------------------------
# Each daemon runs in a session of its own (setsid), its pid in
# DIR/pids/NAME.pid; stop sends TERM to the session, then KILL.
pid_of() {  # NAME -> pid if alive
  local pid
  pid=$(cat "$PIDS/$1.pid" 2>/dev/null) || return 1
  kill -0 "$pid" 2>/dev/null && echo "$pid"
}

launch() {  # NAME COMMAND... (output to DIR/log/NAME.out)
  local name=$1
  shift
  setsid "$@" </dev/null >"$LOG/$name.out" 2>&1 &
  echo $! >"$PIDS/$name.pid"
  disown $! 2>/dev/null || true
}

kill_session() {  # NAME: TERM the process group, wait up to 15 s, KILL
  local name=$1 pid i
  pid=$(pid_of "$name") || { rm -f "$PIDS/$name.pid"; return 0; }
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 75; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "cloud: $name ($pid) did not stop, killed" >&2
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PIDS/$name.pid"
}

wait_for() {  # SECONDS WHAT COMMAND...: poll until COMMAND succeeds
  local secs=$1 what=$2 deadline
  shift 2
  deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "cloud: $what did not come up in ${secs}s" >&2; return 1; }
    sleep 0.5
  done
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
http_ok() { [ "$(curl -s -o /dev/null -m 5 -w '%{http_code}' "$1")" = "${2:-200}" ]; }

SERVICES="rabbitmq neutron glance nova-conductor nova-scheduler nova-compute-a nova-compute-b"

stop_all() {
  local s
  for s in nova-compute-b nova-compute-a nova-scheduler nova-conductor glance neutron; do
    kill_session "$s"
  done
  if pid=$(cat "$DIR/httpd.pid" 2>/dev/null) && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$DIR/httpd.pid"
  kill_session rabbitmq
  if [ -f "$DIR/rabbit/epmd.port" ]; then  # Erlang's port mapper, started by rabbitmq
    ERL_EPMD_PORT=$(cat "$DIR/rabbit/epmd.port") epmd -kill >/dev/null 2>&1 || true
  fi
  if [ -d "$DIR/db/data" ]; then
    if [ "$CLOUD_DB_USED" = mysql ]; then mysql_stop "$DIR/db" || true; else pg_stop "$DIR/db" || true; fi
  fi
}

# --- configuration --------------------------------------------------------------
db_url() {  # DBNAME -> SQLAlchemy URL
  if [ "$CLOUD_DB" = mysql ]; then
    echo "mysql+pymysql://placement:placement@127.0.0.1:$DB_PORT/$1?charset=utf8"
  else
    echo "postgresql+psycopg2://placement:placement@127.0.0.1:$DB_PORT/$1"
  fi
}

# [keystone_authtoken]-style password credentials of USER on project service
creds() {  # SECTION USER PASSWORD
  cat <<EOF
[$1]
auth_type = password
auth_url = $KS_URL
username = $2
password = $3
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = RegionOne
EOF
}

authtoken() {  # USER PASSWORD
  creds keystone_authtoken "$1" "$2"
  cat <<EOF
www_authenticate_uri = $KS_URL
service_token_roles_required = true
EOF
}

write_keystone_conf() {
  mkdir -p "$DIR/keystone"
  cat >"$DIR/keystone/keystone.conf" <<EOF
# written by scripts/cloud/cloud.sh
[DEFAULT]
log_file = $LOG/keystone.log
use_stderr = false
debug = $DEBUG
[database]
connection = $(db_url keystone)
[token]
provider = fernet
[fernet_tokens]
key_repository = $DIR/keystone/fernet-keys/
[fernet_receipts]
key_repository = $DIR/keystone/fernet-keys/
[credential]
key_repository = $DIR/keystone/credential-keys/
[identity]
password_hash_rounds = 4
[cache]
enabled = true
backend = dogpile.cache.memory
EOF
}

write_nova_conf() {
  mkdir -p "$DIR/nova/state" "$DIR/nova/lock"
  {
    cat <<EOF
# written by scripts/cloud/cloud.sh; each nova process also reads its own
# file (compute-a.conf ...) after this one
[DEFAULT]
transport_url = rabbit://guest:guest@127.0.0.1:$RABBIT_PORT/
use_stderr = false
debug = $DEBUG
# nova-api's (mod_wsgi); the daemons and nova-manage give --log-file
log_file = $LOG/nova-api.log
state_path = $DIR/nova/state
my_ip = 127.0.0.1
osapi_compute_workers = 1
metadata_workers = 1
compute_driver = cloud_fake.SmallFakeDriver
# the fake hosts are small on purpose: no overcommit, nothing reserved, so
# what fits is what the flavors add up to
initial_cpu_allocation_ratio = 1.0
initial_ram_allocation_ratio = 1.0
initial_disk_allocation_ratio = 1.0
reserved_host_memory_mb = 0
reserved_host_disk_mb = 0
# a resize goes to the other host, as a migration does
allow_resize_to_same_host = false
# the fake driver has no console, no metadata service
instance_usage_audit = false
heal_instance_info_cache_interval = -1
[api]
auth_strategy = keystone
[wsgi]
api_paste_config = $DIR/nova/api-paste.ini
[api_database]
connection = $(db_url nova_api)
[database]
connection = $(db_url nova)
[conductor]
workers = 2
[scheduler]
# two schedulers, as a deployment runs several: their claims race on the
# same hosts, which placement must settle (the storm counts the conflicts)
workers = 2
discover_hosts_in_cells_interval = 2
max_attempts = 3
[quota]
count_usage_from_placement = true
[oslo_concurrency]
lock_path = $DIR/nova/lock
[oslo_messaging_notifications]
driver = noop
[oslo_messaging_rabbit]
heartbeat_timeout_threshold = 0
[vnc]
enabled = false
[glance]
region_name = RegionOne
[cinder]
os_region_name = RegionOne
EOF
    authtoken nova "$KS_NOVA_PASSWORD"
    creds placement nova "$KS_NOVA_PASSWORD"
    echo "valid_interfaces = public"
    creds neutron neutron "$KS_NEUTRON_PASSWORD"
    creds service_user nova "$KS_NOVA_PASSWORD"
    echo "send_service_user_token = true"
  } >"$DIR/nova/nova.conf"
  cat >"$DIR/nova/compute-a.conf" <<EOF
[DEFAULT]
host = cloud-a
compute_driver = cloud_fake.SmallFakeDriver
instances_path = $DIR/nova/instances-a
EOF
  cat >"$DIR/nova/compute-b.conf" <<EOF
[DEFAULT]
host = cloud-b
compute_driver = cloud_fake.NestedFakeDriver
instances_path = $DIR/nova/instances-b
EOF
  # the release whose libvirt traits cloud-b reports; t/cloud/scenario.py
  # traits moves it with the reference
  echo "$CLOUD_B_RELEASE" >"$DIR/nova/compute-b.release"
  cp "$HERE/nova-api-paste.ini" "$DIR/nova/api-paste.ini"
  cp "$HERE/nova-api.wsgi" "$DIR/nova/nova-api.wsgi"
}

write_glance_conf() {
  mkdir -p "$DIR/glance/images" "$DIR/glance/staging" "$DIR/glance/tasks" "$DIR/glance/lock"
  {
    cat <<EOF
# written by scripts/cloud/cloud.sh
[DEFAULT]
bind_host = 127.0.0.1
bind_port = $GLANCE_PORT
workers = 1
use_stderr = false
log_file = $LOG/glance-api.log
debug = $DEBUG
enabled_backends = fs:file
image_cache_dir = $DIR/glance/cache
[database]
connection = $(db_url glance)
[glance_store]
default_backend = fs
[fs]
filesystem_store_datadir = $DIR/glance/images/
[os_glance_staging_store]
filesystem_store_datadir = $DIR/glance/staging/
[os_glance_tasks_store]
filesystem_store_datadir = $DIR/glance/tasks/
[paste_deploy]
flavor = keystone
config_file = $HERE/glance-api-paste.ini
[oslo_concurrency]
lock_path = $DIR/glance/lock
EOF
    authtoken glance "$KS_GLANCE_PASSWORD"
  } >"$DIR/glance/glance-api.conf"
}

write_neutron_conf() {
  mkdir -p "$DIR/neutron/state" "$DIR/neutron/lock"
  {
    cat <<EOF
# written by scripts/cloud/cloud.sh: the API server alone, ML2 without
# mechanism drivers or agents; nova only lists the (no) ports of its servers
[DEFAULT]
bind_host = 127.0.0.1
bind_port = $NEUTRON_PORT
core_plugin = ml2
service_plugins = router,port_forwarding
api_workers = 1
rpc_workers = 1
rpc_state_report_workers = 0
transport_url = rabbit://guest:guest@127.0.0.1:$RABBIT_PORT/
auth_strategy = keystone
api_paste_config = $HERE/neutron-api-paste.ini
notify_nova_on_port_status_changes = false
notify_nova_on_port_data_changes = false
state_path = $DIR/neutron/state
use_stderr = false
log_file = $LOG/neutron-server.log
debug = $DEBUG
[database]
connection = $(db_url neutron)
[oslo_concurrency]
lock_path = $DIR/neutron/lock
[oslo_messaging_notifications]
driver = noop
[ml2]
type_drivers = flat
tenant_network_types =
mechanism_drivers =
extension_drivers =
[ml2_type_flat]
flat_networks = *
EOF
    authtoken neutron "$KS_NEUTRON_PASSWORD"
  } >"$DIR/neutron/neutron.conf"
}

write_reference_conf() {  # upstream placement 8.0.0 under mod_wsgi
  mkdir -p "$DIR/placement"
  {
    cat <<EOF
# written by scripts/cloud/cloud.sh (REFERENCE=1)
[DEFAULT]
log_file = $LOG/placement-api.log
use_stderr = false
debug = $DEBUG
[api]
auth_strategy = keystone
[placement_database]
connection = $(db_url placement)
EOF
    authtoken placement "$KS_PLACEMENT_PASSWORD"
  } >"$DIR/placement/placement.conf"
}

placement_block() {  # the /placement part of httpd.conf
  if [ "$REFERENCE" = 1 ]; then
    cat <<EOF
# upstream placement 8.0.0 (REFERENCE=1)
WSGIDaemonProcess placement processes=1 threads=8 display-name=%{GROUP} home="$DIR/placement"
WSGIScriptAlias /placement /usr/bin/placement-api process-group=placement application-group=%{GLOBAL}
<Directory /usr/bin>
    <Files placement-api>
        Require all granted
    </Files>
</Directory>
EOF
    return
  fi
  local policy
  # placement's current release: scope and new defaults enforced
  if [ "$CLOUD_POLICY" = current ]; then
    policy="PlacementPolicyDefaults 2026.1"
  else
    policy="PlacementPolicyDefaults zed"
  fi
  cat <<EOF
LoadModule dbd_module "$MODULES_DIR/mod_dbd.so"
LoadModule socache_shmcb_module "$MODULES_DIR/mod_socache_shmcb.so"
LoadModule placement_module "$MOD"
$("$REPO/scripts/db-init.sh" --dbd "$PLACEMENT_DB")
DBDPersist On
DBDMin 0
DBDKeep 2
DBDMax 8
DBDExptime 60

<Location /placement>
    SetHandler placement
    PlacementAuthStrategy keystone
    PlacementKeystoneAuthURL $KS_URL
    PlacementKeystoneWWWAuthenticateURI $KS_URL/v3
    PlacementKeystoneUsername placement
    PlacementKeystonePassword $KS_PLACEMENT_PASSWORD
    PlacementKeystoneProjectName service
    PlacementKeystoneUserDomainName Default
    PlacementKeystoneProjectDomainName Default
    $policy
    Require all granted
</Location>
<Location /placement-metrics>
    SetHandler placement-metrics
    Require ip 127.0.0.1
</Location>
EOF
}

write_httpd_conf() {
  local ug=""
  [ "$(id -u)" != 0 ] || ug="User www-data
Group www-data"
  cat >"$DIR/httpd.conf" <<EOF
# written by scripts/cloud/cloud.sh: one Apache for Keystone, nova's API and
# placement, as DevStack has them
ServerRoot "$DIR"
DefaultRuntimeDir "$DIR"
PidFile "$DIR/httpd.pid"
ServerName 127.0.0.1
Listen 127.0.0.1:$HTTP_PORT
$ug

LoadModule mpm_event_module "$MODULES_DIR/mod_mpm_event.so"
LoadModule authz_core_module "$MODULES_DIR/mod_authz_core.so"
LoadModule authz_host_module "$MODULES_DIR/mod_authz_host.so"
LoadModule wsgi_module "$MODULES_DIR/mod_wsgi.so"

StartServers 2
ServerLimit 2
ThreadsPerChild 32
MaxRequestWorkers 64
MinSpareThreads 8
MaxSpareThreads 64
Timeout 120
KeepAlive On

ErrorLog "$LOG/httpd-error.log"
LogLevel warn
LogFormat "%h %t \"%r\" %>s %b %Dus" cloud
CustomLog "$LOG/httpd-access.log" cloud

WSGISocketPrefix "$DIR/wsgi"
WSGIPassAuthorization On

WSGIDaemonProcess keystone processes=1 threads=4 display-name=%{GROUP} home="$DIR/keystone"
WSGIScriptAlias /identity /usr/bin/keystone-wsgi-public process-group=keystone application-group=%{GLOBAL}
<Directory /usr/bin>
    <Files keystone-wsgi-public>
        Require all granted
    </Files>
</Directory>

WSGIDaemonProcess nova-api processes=2 threads=1 display-name=%{GROUP} home="$DIR/nova"
# loaded at its first request (no process-group= here), not when httpd
# starts: its databases are made after Keystone is up
WSGIScriptAlias /compute "$DIR/nova/nova-api.wsgi"
<Location /compute>
    WSGIProcessGroup nova-api
    WSGIApplicationGroup %{GLOBAL}
</Location>
<Directory "$DIR/nova">
    <Files nova-api.wsgi>
        Require all granted
    </Files>
</Directory>

$(placement_block)
EOF
}

# --- set-up of a new DIR ------------------------------------------------------------
start_db() {
  if [ "$CLOUD_DB" = mysql ]; then
    mysql_start "$DIR/db" >/dev/null || die "MariaDB did not start"
    DB_PORT=$MYSQL_PORT
  else
    pg_start "$DIR/db" >/dev/null || die "PostgreSQL did not start"
    DB_PORT=$PG_PORT
  fi
}

create_databases() {
  local d
  for d in keystone nova_api nova_cell0 nova glance neutron; do
    if [ "$CLOUD_DB" = mysql ]; then
      "$(pl_mysql_client)" --no-defaults --socket="$DIR/db/sock" --user=root \
        -e "CREATE DATABASE $d CHARACTER SET utf8"
    else
      pl_pg_as "$PG_BINDIR/psql" -X -q -h "$DIR/db" -p "$DB_PORT" -U postgres -d postgres \
        -c "CREATE DATABASE $d OWNER placement"
    fi
  done
}

manage() {  # LOGNAME COMMAND...: a one-shot management command, logged
  local name=$1
  shift
  echo "+ $(date +%T) $*" >>"$LOG/$name.log"
  "$@" >>"$LOG/$name.log" 2>&1 || { tail -20 "$LOG/$name.log" >&2; die "$* failed (log: $LOG/$name.log)"; }
}

start_rabbitmq() {
  local r=$DIR/rabbit
  mkdir -p "$r/mnesia" "$r/log"
  echo "[]." >"$r/enabled_plugins"
  : >"$r/rabbitmq-env.conf"
  printf 'listeners.tcp.default = %s\nloopback_users.guest = true\n' "$RABBIT_PORT" >"$r/rabbitmq.conf"
  echo "$EPMD_PORT" >"$r/epmd.port"
  [ -f "$r/.erlang.cookie" ] || { $PY -c 'import secrets; print(secrets.token_hex(16), end="")' >"$r/.erlang.cookie"; chmod 400 "$r/.erlang.cookie"; }
  launch rabbitmq env HOME="$r" RABBITMQ_CONF_ENV_FILE="$r/rabbitmq-env.conf" \
    RABBITMQ_CONFIG_FILE="$r/rabbitmq.conf" RABBITMQ_ENABLED_PLUGINS_FILE="$r/enabled_plugins" \
    RABBITMQ_MNESIA_BASE="$r/mnesia" RABBITMQ_LOG_BASE="$r/log" RABBITMQ_NODENAME="cloud$RABBIT_PORT@localhost" \
    RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT="$RABBIT_PORT" RABBITMQ_DIST_PORT="$RABBIT_DIST_PORT" \
    ERL_EPMD_PORT="$EPMD_PORT" ERL_EPMD_ADDRESS=127.0.0.1 RABBITMQ_PID_FILE="$r/rabbit.pid" \
    /usr/lib/rabbitmq/bin/rabbitmq-server
}

write_env() {
  {
    echo "# written by scripts/cloud/cloud.sh"
    for v in CLOUD_DB CLOUD_POLICY REFERENCE HTTP_PORT DB_PORT RABBIT_PORT RABBIT_DIST_PORT EPMD_PORT \
             GLANCE_PORT NEUTRON_PORT DEBUG; do
      printf "%s='%s'\n" "$v" "${!v}"
    done
    echo "CLOUD_URL='http://127.0.0.1:$HTTP_PORT'"
    echo "KS_URL='http://127.0.0.1:$HTTP_PORT/identity'"
    echo "PLACEMENT_URL='http://127.0.0.1:$HTTP_PORT/placement'"
  } >"$DIR/cloud.env"
}

write_openrc() {  # FILE USER PASSWORD PROJECT
  cat >"$1" <<EOF
# for the openstack client: . $1
export OS_AUTH_URL=$KS_URL/v3
export OS_IDENTITY_API_VERSION=3
export OS_USERNAME=$2
export OS_PASSWORD=$3
export OS_PROJECT_NAME=$4
export OS_USER_DOMAIN_NAME=Default
export OS_PROJECT_DOMAIN_NAME=Default
export OS_REGION_NAME=RegionOne
export OS_INTERFACE=public
export OS_COMPUTE_API_VERSION=2.latest
export OS_PLACEMENT_API_VERSION=1.39
EOF
}

load_env() {
  # shellcheck disable=SC1091
  . "$DIR/cloud.env"
  # shellcheck disable=SC1091
  [ ! -f "$DIR/env" ] || . "$DIR/env"
}

start() {
  local t0=$SECONDS pyenv
  [ -x /usr/bin/keystone-wsgi-public ] || die "python3-keystone is missing: scripts/install-deps.sh --cloud"
  $PY -c 'import nova, glance, neutron' 2>/dev/null || die "python3-nova, python3-glance or python3-neutron is missing: scripts/install-deps.sh --cloud"
  [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || die "rabbitmq-server is missing: scripts/install-deps.sh --cloud"
  [ "$REFERENCE" = 1 ] || [ -f "$MOD" ] || die "$MOD not found: run make first"
  mkdir -p "$LOG" "$PIDS"
  if [ "$(id -u)" = 0 ]; then
    chmod 755 "$DIR"
    chmod 1777 "$LOG"
    # the WSGI daemons (www-data) log to files the set-up (root) writes too
    touch "$LOG/keystone.log" "$LOG/nova-api.log" "$LOG/placement-api.log"
    chmod 666 "$LOG/keystone.log" "$LOG/nova-api.log" "$LOG/placement-api.log"
    runuser -u www-data -- test -x "$DIR" || die "www-data cannot reach $DIR (make every parent directory searchable)"
  fi
  DEBUG=false
  [ "${CLOUD_VERBOSE:-0}" != 1 ] || DEBUG=true
  if [ -f "$DIR/cloud.env" ]; then
    die "$DIR was set up before: use a new directory (a restart of the same cloud is not supported)"
  fi
  HTTP_PORT=$(pl_free_port) RABBIT_PORT=$(pl_free_port) RABBIT_DIST_PORT=$(pl_free_port)
  EPMD_PORT=$(pl_free_port) GLANCE_PORT=$(pl_free_port) NEUTRON_PORT=$(pl_free_port)
  CLOUD_DB_USED=$CLOUD_DB
  echo "$CLOUD_DB" >"$DIR/db.kind"
  KS_URL=http://127.0.0.1:$HTTP_PORT/identity

  say "database ($CLOUD_DB), RabbitMQ"
  start_rabbitmq
  start_db
  write_env
  create_databases >/dev/null
  if [ "$REFERENCE" = 1 ]; then
    PLACEMENT_DB=""
  else
    PLACEMENT_DB=$(db_url placement | sed 's/+psycopg2//; s/+pymysql//; s/?charset=utf8//')
    "$REPO/scripts/db-init.sh" "$PLACEMENT_DB" >/dev/null
  fi

  say "Keystone: db_sync, bootstrap"
  write_keystone_conf
  # the keys are read by Keystone's WSGI daemon: www-data under root
  local ks_user
  ks_user=$(id -un)
  [ "$(id -u)" != 0 ] || ks_user=www-data
  manage keystone-manage keystone-manage --config-file "$DIR/keystone/keystone.conf" fernet_setup \
    --keystone-user "$ks_user" --keystone-group "$(id -gn "$ks_user")"
  manage keystone-manage keystone-manage --config-file "$DIR/keystone/keystone.conf" credential_setup \
    --keystone-user "$ks_user" --keystone-group "$(id -gn "$ks_user")"
  manage keystone-manage keystone-manage --config-file "$DIR/keystone/keystone.conf" db_sync
  KS_ADMIN_PASSWORD=$($PY -c 'import secrets; print(secrets.token_hex(12))')
  manage keystone-manage keystone-manage --config-file "$DIR/keystone/keystone.conf" bootstrap \
    --bootstrap-password "$KS_ADMIN_PASSWORD" --bootstrap-username admin \
    --bootstrap-project-name admin --bootstrap-role-name admin \
    --bootstrap-service-name keystone --bootstrap-region-id RegionOne \
    --bootstrap-admin-url "$KS_URL/v3" --bootstrap-internal-url "$KS_URL/v3" \
    --bootstrap-public-url "$KS_URL/v3"
  printf "KS_ADMIN_PASSWORD='%s'\n" "$KS_ADMIN_PASSWORD" >"$DIR/env"
  # passwords the configuration files need, made now, kept by catalog.py
  for u in NOVA PLACEMENT GLANCE NEUTRON DEMO; do
    printf "KS_%s_PASSWORD='%s'\n" "$u" "$($PY -c 'import secrets; print(secrets.token_hex(12))')" >>"$DIR/env"
  done
  load_env

  # Apache must run for the catalog to be made; nova's API answers once
  # its database is there (it is imported at the first request).
  write_nova_conf
  write_glance_conf
  write_neutron_conf
  [ "$REFERENCE" = 0 ] || write_reference_conf
  write_httpd_conf
  [ "$(id -u)" != 0 ] || chown -R www-data:www-data "$DIR/keystone" "$DIR/nova" ${REFERENCE:+"$DIR/placement"} 2>/dev/null || true
  say "Apache: Keystone, nova-api, placement"
  OS_KEYSTONE_CONFIG_DIR=$DIR/keystone OS_NOVA_CONFIG_DIR=$DIR/nova OS_PLACEMENT_CONFIG_DIR=$DIR/placement \
    "$APACHE2" -f "$DIR/httpd.conf" -k start >"$LOG/httpd.out" 2>&1 ||
    { cat "$LOG/httpd.out" >&2; die "httpd did not start"; }
  wait_for 60 Keystone http_ok "$KS_URL/v3"
  KS_URL=$KS_URL CLOUD_URL=http://127.0.0.1:$HTTP_PORT \
    CLOUD_IMAGE_URL=http://127.0.0.1:$GLANCE_PORT CLOUD_NETWORK_URL=http://127.0.0.1:$NEUTRON_PORT \
    CLOUD_POLICY=$CLOUD_POLICY KS_ADMIN_PASSWORD=$KS_ADMIN_PASSWORD \
    $PY "$HERE/catalog.py" "$DIR/env" || die "Keystone set-up failed"
  load_env
  write_openrc "$DIR/openrc" admin "$KS_ADMIN_PASSWORD" admin
  write_openrc "$DIR/openrc-demo" demo "$KS_DEMO_PASSWORD" demo

  say "schemas: nova, glance, neutron (in parallel)"
  local n=$DIR/nova/nova.conf
  (
    manage nova-manage $PY "$SVC" nova-manage nova.cmd.manage --config-file "$n" api_db sync
    manage nova-manage $PY "$SVC" nova-manage nova.cmd.manage --config-file "$n" cell_v2 map_cell0 \
      --database_connection "$(db_url nova_cell0)"
    manage nova-manage $PY "$SVC" nova-manage nova.cmd.manage --config-file "$n" cell_v2 create_cell \
      --name cell1 --verbose
    manage nova-manage $PY "$SVC" nova-manage nova.cmd.manage --config-file "$n" db sync
  ) &
  local p_nova=$!
  manage glance-manage $PY "$SVC" glance-manage glance.cmd.manage --config-file "$DIR/glance/glance-api.conf" db_sync &
  local p_glance=$!
  manage neutron-db-manage $PY "$SVC" neutron-db-manage neutron.db.migration.cli \
    --config-file "$DIR/neutron/neutron.conf" upgrade heads &
  local p_neutron=$!
  if [ "$REFERENCE" = 1 ]; then
    manage placement-manage placement-manage --config-file "$DIR/placement/placement.conf" db sync
  fi
  wait "$p_nova" || die "nova's schemas failed (log: $LOG/nova-manage.log)"
  wait "$p_glance" || die "glance's schema failed (log: $LOG/glance-manage.log)"
  wait "$p_neutron" || die "neutron's schema failed (log: $LOG/neutron-db-manage.log)"
  wait_for 30 RabbitMQ port_open "$RABBIT_PORT"

  say "glance-api, neutron-server, nova-conductor, nova-scheduler, two nova-compute"
  launch glance $PY "$SVC" glance-api glance.cmd.api --config-file "$DIR/glance/glance-api.conf"
  launch neutron $PY "$SVC" neutron-server neutron.cmd.eventlet.server \
    --config-file "$DIR/neutron/neutron.conf"
  pyenv=CLOUD_NOVA_VIRT_DIR=$HERE
  launch nova-conductor $PY "$SVC" nova-conductor nova.cmd.conductor --config-file "$n" \
    --log-file "$LOG/nova-conductor.log"
  launch nova-scheduler $PY "$SVC" nova-scheduler nova.cmd.scheduler --config-file "$n" \
    --log-file "$LOG/nova-scheduler.log"
  launch nova-compute-a env "$pyenv" CLOUD_VCPUS=8 CLOUD_MEMORY_MB=8192 CLOUD_DISK_GB=100 \
    $PY "$SVC" nova-compute nova.cmd.compute --config-file "$n" --config-file "$DIR/nova/compute-a.conf" \
    --log-file "$LOG/nova-compute-a.log"
  launch nova-compute-b env "$pyenv" CLOUD_VCPUS=8 CLOUD_MEMORY_MB=8192 CLOUD_DISK_GB=100 CLOUD_VGPUS=4 \
    CLOUD_NOVA_RELEASE_FILE="$DIR/nova/compute-b.release" \
    $PY "$SVC" nova-compute nova.cmd.compute --config-file "$n" --config-file "$DIR/nova/compute-b.conf" \
    --log-file "$LOG/nova-compute-b.log"
  wait_for 60 glance-api http_ok "http://127.0.0.1:$GLANCE_PORT/" 300
  wait_for 90 neutron-server http_ok "http://127.0.0.1:$NEUTRON_PORT/"

  say "flavors, image, waiting for both hosts in placement and in nova's cell"
  $PY "$HERE/populate.py" "$DIR" || die "populating the cloud failed"
  say "up in $((SECONDS - t0))s"
}

print_usage() {
  load_env
  cat <<EOF

The cloud is up (Keystone, nova's API and placement in one Apache at
http://127.0.0.1:$HTTP_PORT; policy $CLOUD_POLICY; $([ "$REFERENCE" = 1 ] && echo "upstream placement 8.0.0" || echo "mod_placement"); database $CLOUD_DB). Try:

  . $DIR/openrc          # admin; $DIR/openrc-demo is the demo user
  openstack server create --flavor m1.small --image cloud-image --nic none --wait vm1
  openstack server list
  openstack resource provider list
  openstack allocation candidate list --resource VCPU=1 --resource MEMORY_MB=512
  openstack --os-placement-api-version 1.29 allocation candidate list --resource VCPU=1 --resource VGPU=1
  openstack resource provider usage show <provider uuid>
  curl -s http://127.0.0.1:$HTTP_PORT/placement-metrics

Flavors: m1.tiny (1 VCPU, 512 MB, 1 GB), m1.small (2, 2048, 10), m1.medium (4, 4096, 20),
m1.vgpu
(1, 1024, 10 + VGPU from cloud-b's child provider), m1.huge (12 VCPU: fits nowhere),
m1.tpm (1, 512, 1 + required trait COMPUTE_SECURITY_TPM_TIS, which libvirt reports from nova 2024.2).
cloud-b reports the libvirt traits of nova $(cat "$DIR/nova/compute-b.release") (the file $DIR/nova/compute-b.release).
Hosts: cloud-a and cloud-b, 8 VCPU, 8192 MB, 100 GB each. Logs: $LOG.
Ctrl-C stops everything.
EOF
}

case "$cmd" in
  start)
    CLOUD_DB_USED=$CLOUD_DB
    started=0
    trap '[ "$started" = 1 ] || stop_all' EXIT
    trap 'exit 130' INT TERM
    start
    started=1 ;;
  stop)
    CLOUD_DB_USED=$(cat "$DIR/db.kind" 2>/dev/null || echo pgsql)
    stop_all ;;
  status)
    for s in $SERVICES; do pid_of "$s" >/dev/null || { echo "cloud: $s is not running" >&2; exit 1; }; done
    load_env
    http_ok "$KS_URL/v3" || { echo "cloud: Apache does not answer" >&2; exit 1; } ;;
  run)
    CLOUD_DB_USED=$CLOUD_DB
    sleeper=""
    trap '[ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null; stop_all' EXIT
    trap 'echo; say "stopping"; exit 130' INT TERM HUP
    start
    print_usage
    while true; do
      sleep 3600 &
      sleeper=$!
      wait "$sleeper"
    done ;;
  stop-service)
    case " $SERVICES " in *" $3 "*) kill_session "$3" ;; *) die "no service $3" ;; esac ;;
  *) usage ;;
esac
