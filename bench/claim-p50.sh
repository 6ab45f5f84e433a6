#!/bin/bash
# PUT /allocations at c=1, two builds side by side on one PostgreSQL
# database (issue 26): a private PostgreSQL (scripts/lib-db.sh), the
# schema, one server per build (bench/mod-httpd.sh), 8 providers, then
# N claims of a new consumer each (VCPU 1, MEMORY_MB 512 on one
# provider), taking turns between the two servers; p50 and p99 of each.
#
#   bench/claim-p50.sh OLD.so NEW.so [N]     (N: claims per build, 500)
#
# Everything lives in /tmp/claim-p50.XXXX, stopped and removed at the end.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
old=${1:?usage: $0 OLD.so NEW.so [N]} new=${2:?NEW.so missing} n=${3:-500}
# shellcheck source=../scripts/lib-db.sh
. "$REPO/scripts/lib-db.sh"
work=$(mktemp -d /tmp/claim-p50.XXXX)
chmod 755 "$work"
cleanup() {
  "$REPO/bench/mod-httpd.sh" stop "$work/old" || true
  "$REPO/bench/mod-httpd.sh" stop "$work/new" || true
  pg_stop "$work/pg" || true
  rm -rf "$work"
}
trap cleanup EXIT
pg_start "$work/pg" >/dev/null
url="postgresql://placement:placement@127.0.0.1:$PG_PORT/placement"
"$REPO/scripts/db-init.sh" "$url" >/dev/null
p_old=$(pl_free_port) p_new=$(pl_free_port)
MOD_PLACEMENT=$old "$REPO/bench/mod-httpd.sh" start "$work/old" "$p_old" "$url"
MOD_PLACEMENT=$new "$REPO/bench/mod-httpd.sh" start "$work/new" "$p_new" "$url"
/usr/bin/python3 - "$p_old" "$p_new" "$n" <<'PY'
import http.client, json, sys, time, uuid
ports = {'old': int(sys.argv[1]), 'new': int(sys.argv[2])}
n = int(sys.argv[3])
H = {'x-auth-token': 'admin', 'openstack-api-version': 'placement 1.39',
     'content-type': 'application/json'}
conns = {k: http.client.HTTPConnection('127.0.0.1', p, timeout=30)
         for k, p in ports.items()}
def call(k, method, path, body=None):
    c = conns[k]
    c.request(method, path, body=json.dumps(body) if body is not None
              else None, headers=H)
    r = c.getresponse()
    r.read()
    return r.status
provs = []
for i in range(8):
    u = str(uuid.uuid4())
    assert call('new', 'POST', '/resource_providers',
                {'name': 'claim-%d' % i, 'uuid': u}) in (200, 201)
    assert call('new', 'PUT', '/resource_providers/%s/inventories' % u,
                {'resource_provider_generation': 0, 'inventories': {
                    'VCPU': {'total': 100000},
                    'MEMORY_MB': {'total': 100000000}}}) == 200
    provs.append(u)
proj, user = str(uuid.uuid4()), str(uuid.uuid4())
times = {'old': [], 'new': []}
for i in range(2 * n + 20):
    k = 'old' if i % 2 == 0 else 'new'
    body = {'allocations': {provs[i % 8]: {'resources': {
                'VCPU': 1, 'MEMORY_MB': 512}}},
            'project_id': proj, 'user_id': user,
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}
    t = time.perf_counter()
    st = call(k, 'PUT', '/allocations/%s' % uuid.uuid4(), body)
    took = (time.perf_counter() - t) * 1000
    assert st == 204, st
    if i >= 20:  # the first ones warm the connections up
        times[k].append(took)
for k in ('old', 'new'):
    t = sorted(times[k])
    print('%s: PUT /allocations c=1, %d claims: p50 %.2f ms, p99 %.2f ms'
          % (k, len(t), t[len(t) // 2], t[int(len(t) * 0.99)]))
PY
