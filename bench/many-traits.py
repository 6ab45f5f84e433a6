#!/usr/bin/python3
# GET /allocation_candidates with long required= lists (issue 13 item 1).
#
#   bench/many-traits.py URL [--repeat N] [--skip-load]
#
# Loads 200 flat providers with VCPU, every one with the 40 traits
# CUSTOM_MT_000..039 (and 20 of them CUSTOM_MT_EXTRA), through the API of
# a server in noauth2 mode, then times (wall clock, loopback) each case N
# times after one warm-up and prints candidates and p50 / max ms:
# one trait 200 times, 40 traits 5 times each, 200 traits of which one no
# provider has, and 40 traits as root_required 5 times each.
import argparse
import json
import statistics
import time
import urllib.request
import uuid

HDR = {'x-auth-token': 'admin', 'openstack-api-version': 'placement 1.39',
       'content-type': 'application/json', 'accept': 'application/json'}
TRAITS = ['CUSTOM_MT_%03d' % i for i in range(40)]


def call(url, method='GET', body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=HDR)
    with urllib.request.urlopen(req, timeout=300) as r:
        raw = r.read()
        return json.loads(raw) if raw else None


def load(base):
    for t in TRAITS + ['CUSTOM_MT_EXTRA', 'CUSTOM_MT_NOBODY']:
        call(base + '/traits/' + t, 'PUT')
    for i in range(200):
        u = str(uuid.uuid4())
        call(base + '/resource_providers', 'POST', {'name': 'mt-%d' % i,
                                                    'uuid': u})
        call(base + '/resource_providers/%s/inventories' % u, 'PUT',
             {'resource_provider_generation': 0,
              'inventories': {'VCPU': {'total': 8}}})
        call(base + '/resource_providers/%s/traits' % u, 'PUT',
             {'resource_provider_generation': 1,
              'traits': TRAITS + (['CUSTOM_MT_EXTRA'] if i % 10 == 0
                                  else [])})


CASES = [
    ('one trait x200', 'required=' + ','.join([TRAITS[0]] * 200)),
    ('40 traits x5', 'required=' + ','.join(TRAITS * 5)),
    ('199 + EXTRA', 'required=' + ','.join(TRAITS * 4 + [TRAITS[1]] * 39
                                           + ['CUSTOM_MT_EXTRA'])),
    ('199 + NOBODY', 'required=' + ','.join(TRAITS * 4 + [TRAITS[1]] * 39
                                            + ['CUSTOM_MT_NOBODY'])),
    ('root_required 40x5', 'root_required=' + ','.join(TRAITS * 5)),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('url')
    ap.add_argument('--repeat', type=int, default=5)
    ap.add_argument('--skip-load', action='store_true')
    a = ap.parse_args()
    base = a.url.rstrip('/')
    if not a.skip_load:
        load(base)
    print('# %-22s %6s %9s %9s' % ('case', 'cands', 'p50 ms', 'max ms'))
    for name, q in CASES:
        url = base + '/allocation_candidates?resources=VCPU:1&' + q
        body = call(url)
        times = []
        for _ in range(a.repeat):
            t = time.time()
            body = call(url)
            times.append((time.time() - t) * 1000)
        print('%-24s %6d %9.1f %9.1f' % (name,
                                         len(body['allocation_requests']),
                                         statistics.median(times),
                                         max(times)))


if __name__ == '__main__':
    main()
