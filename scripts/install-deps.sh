#!/bin/bash
# Install the Debian 12 packages mod_placement needs, and nothing that is
# already there.
#
#   scripts/install-deps.sh          build + test dependencies (make test)
#   scripts/install-deps.sh --run    only what `make run` needs (build, sqlite)
#   scripts/install-deps.sh --cloud  build + test dependencies and the small
#                                    OpenStack of `make cloud` (nova, glance,
#                                    neutron's Python code, rabbitmq-server)
#
# Every package is checked with dpkg-query first: when all are installed the
# script returns at once and touches neither apt nor the network. Otherwise it
# runs `apt-get update` once and installs the missing ones, non-interactively.
# Debian's postgresql and mariadb-server packages start their system services
# when installed; a temporary /usr/sbin/policy-rc.d (exit 101) forbids that:
# the project only ever runs private servers in temporary directories.
# Extra packages can be added with PL_EXTRA_PKGS="pkg1 pkg2".
set -euo pipefail

BUILD_PKGS="apache2 apache2-dev libjson-c-dev uuid-dev pkg-config gcc libc6-dev make
  libcurl4-openssl-dev libyaml-dev
  libaprutil1-dbd-sqlite3 libaprutil1-dbd-pgsql libaprutil1-dbd-mysql sqlite3"
TEST_PKGS="postgresql mariadb-server mariadb-client python3-gabbi
  python3-placement placement-common python3-psycopg2 python3-pymysql valgrind
  python3-keystone libapache2-mod-wsgi-py3 python3-openstackclient python3-osc-placement
  python3-prometheus-client build-essential dpkg-dev debhelper lintian curl procps clang
  galera-4 rsync clang-format wrk cppcheck clang-tidy libpq-dev"

# `make cloud`, `make test-cloud` (scripts/cloud): the daemons' Python code
# only; scripts/cloud runs each with its own configuration, never as a
# system service (the nova-compute, glance-api ... packages would set those up)
CLOUD_PKGS="python3-nova python3-glance python3-neutron rabbitmq-server"

mode=all
case "${1:-}" in
  --run) mode=run ;;
  --cloud) mode=cloud ;;
  ""|--all|--test) ;;
  -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
  *) echo "usage: $0 [--run|--cloud]" >&2; exit 2 ;;
esac

wanted="$BUILD_PKGS ${PL_EXTRA_PKGS:-}"
[ "$mode" = run ] || wanted="$wanted $TEST_PKGS"
[ "$mode" != cloud ] || wanted="$wanted $CLOUD_PKGS"

missing=""
for p in $wanted; do
  st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$st" = installed ] || missing="$missing $p"
done

if [ -z "$missing" ]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "install-deps: missing packages and not root (no sudo)" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
policy=/usr/sbin/policy-rc.d
backup=""
restore_policy() {
  if [ -n "$backup" ]; then
    $SUDO mv -f "$backup" "$policy"
  else
    $SUDO rm -f "$policy"
  fi
}
if [ -e "$policy" ]; then
  backup="$policy.pl-save.$$"
  $SUDO cp -p "$policy" "$backup"
fi
trap restore_policy EXIT
printf '#!/bin/sh\n# installed by mod_placement install-deps.sh: no service starts\nexit 101\n' |
  $SUDO tee "$policy" >/dev/null
$SUDO chmod 755 "$policy"

$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
  --no-install-recommends -o Dpkg::Options::=--force-confdef \
  -o Dpkg::Options::=--force-confold $missing
echo "install-deps: done"
