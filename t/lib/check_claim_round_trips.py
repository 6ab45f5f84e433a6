#!/usr/bin/python3
"""Count the round trips to the database of the writes of allocations
(issue 26), from the trace log of a server whose API location has
LogLevel placement:trace1 (t/api/claim-round-trips.yaml): every
statement (PL05000), begin (PL05003) and commit or rollback (PL05004) of
a request is one round trip.

usage: check_claim_round_trips.py API_URL ERROR_LOG [--print]
Prints "ok ..." / "not ok ..." lines; with --print, the counts only.
"""

import http.client
import json
import os
import re
import sys
import time
import urllib.parse
import uuid

HEADERS = {'x-auth-token': 'admin', 'openstack-api-version':
           'placement 1.39', 'content-type': 'application/json'}
TRIP = re.compile(r'PL0500[034]: sql ')

# The most round trips each write may take: what it takes now (issue 26;
# docs/benchmarks.md "Round trips of a claim"). Before, the same writes
# took 21, 37, 17, 35 and 4 on SQLite; then 11, 14, 10, 15 and 4 (the
# providers and the classes read apart, a bump per provider); then 10,
# 13, 9, 12 and 4 (MariaDB 13, 28, 9, 18 and 4: savepoints around its
# INSERTs, a new consumer bumped after its INSERT). The claims are
# nova's three classes: before lists of up to 8 items became one
# statement, their rows took two INSERTs (11, 14, 10, 13 and 4 here;
# MariaDB 14, 29, 10, 19 and 4).
BOUNDS = {
    'PUT, a new consumer, its project and user known': 9,
    'PUT, a new consumer of a new project and user': 12,
    'PUT, an existing consumer moved to another provider': 9,
    'POST, two new consumers on two providers': 11,
    'DELETE a consumer': 4,
}
# MySQL says INSERT IGNORE, then reads the row's id: one more for each
# new row (a consumer, its project and user)
BOUNDS_MYSQL = dict(BOUNDS)
BOUNDS_MYSQL.update({
    'PUT, a new consumer, its project and user known': 10,
    'PUT, a new consumer of a new project and user': 16,
    'POST, two new consumers on two providers': 13,
})


def call(url, method, path, body=None):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request(method, u.path.rstrip('/') + path,
                 body=json.dumps(body) if body is not None else None,
                 headers=HEADERS)
    resp = conn.getresponse()
    data = resp.read()
    return resp.status, resp.getheader('x-openstack-request-id'), data


# A child's first request may also load its cache of the names of
# classes and traits (a transaction of its own): not the write's.
NAME_CACHE = re.compile(r'sql \w+ [0-9.]+ ms, \d+ rows: SELECT name FROM '
                        r'(resource_classes WHERE id < |traits$)')


def without_name_cache(lines):
    out, txn = [], None
    for ln in lines:
        if 'PL05003: sql begin' in ln:
            txn = [ln]
        elif txn is not None:
            txn.append(ln)
            if 'PL05004: sql ' in ln:
                body = txn[1:-1]
                if not (body and all(NAME_CACHE.search(b.rstrip('\n'))
                                     for b in body)):
                    out.extend(txn)
                txn = None
        elif not NAME_CACHE.search(ln.rstrip('\n')):
            out.append(ln)
    return out + (txn or [])


def trips(log, rid):
    # the server writes each line as it logs; give a slow host a moment
    for _ in range(20):
        with open(log, errors='replace') as f:
            found = [ln for ln in f if rid in ln and TRIP.search(ln)]
        if found:
            return without_name_cache(found)
        time.sleep(0.1)
    return []


def provider(url, name, total):
    u = str(uuid.uuid4())
    st, _, _ = call(url, 'POST', '/resource_providers',
                    {'name': name + '-' + u[:8], 'uuid': u})
    assert st in (200, 201), st
    st, _, _ = call(url, 'PUT', '/resource_providers/%s/inventories' % u,
                    {'resource_provider_generation': 0,
                     'inventories': {'VCPU': {'total': total},
                                     'MEMORY_MB': {'total': total * 1024},
                                     'DISK_GB': {'total': total * 10}}})
    assert st == 200, st
    return u


# nova's three classes
def claim(prov, vcpu=1):
    return {'allocations': {prov: {'resources': {'VCPU': vcpu,
                                                 'MEMORY_MB': 512,
                                                 'DISK_GB': 10}}}}


def main():
    url, log = sys.argv[1:3]
    only_print = '--print' in sys.argv[3:]
    bounds = (BOUNDS_MYSQL if os.environ.get('PL_TEST_BACKEND') == 'mysql'
              else BOUNDS)
    a, b = provider(url, 'rt-a', 64), provider(url, 'rt-b', 64)
    counts = {}

    def measure(name, method, path, body, want):
        st, rid, data = call(url, method, path, body)
        found = trips(log, rid)
        counts[name] = len(found)
        if only_print:
            print('%3d  %s (status %d)' % (len(found), name, st))
            return
        ok = st == want and 0 < len(found) <= bounds[name]
        print('%s claim round trips: %s: %d (at most %d)%s' % (
            'ok' if ok else 'not ok', name, len(found), bounds[name],
            '' if ok else ': status %d %s\n# %s' % (
                st, data[:200], '# '.join(found))))

    proj, user = str(uuid.uuid4()), str(uuid.uuid4())
    c1, c2, c3, c4 = (str(uuid.uuid4()) for _ in range(4))
    owner = {'project_id': proj, 'user_id': user, 'consumer_generation': None,
             'consumer_type': 'INSTANCE'}
    measure('PUT, a new consumer of a new project and user', 'PUT',
            '/allocations/' + c1, dict(claim(a), **owner), 204)
    measure('PUT, a new consumer, its project and user known', 'PUT',
            '/allocations/' + c2, dict(claim(a), **owner), 204)
    moved = dict(claim(b), **owner)
    moved['consumer_generation'] = 1
    measure('PUT, an existing consumer moved to another provider', 'PUT',
            '/allocations/' + c2, moved, 204)
    post = {}
    for c, prov in ((c3, a), (c4, b)):
        post[c] = dict(claim(prov), **owner)
    measure('POST, two new consumers on two providers', 'POST',
            '/allocations', post, 204)
    measure('DELETE a consumer', 'DELETE', '/allocations/' + c3, None, 204)

    # what was written is what was asked
    if not only_print:
        st, _, data = call(url, 'GET', '/allocations/' + c2)
        got = json.loads(data)
        ok = (st == 200 and list(got['allocations']) == [b] and
              got['allocations'][b]['resources'] ==
              {'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 10} and
              got['consumer_generation'] == 2)
        print('%s claim round trips: the moved consumer holds what it asked'
              '%s' % ('ok' if ok else 'not ok', '' if ok else ': %r' % got))
        st, _, data = call(url, 'GET', '/resource_providers/%s/usages' % a)
        ok = st == 200 and json.loads(data)['usages'] == {
            'VCPU': 1, 'MEMORY_MB': 512, 'DISK_GB': 10}
        print('%s claim round trips: the first provider\'s usages%s' % (
            'ok' if ok else 'not ok', '' if ok else ': %r' % data))


if __name__ == '__main__':
    main()
