#!/usr/bin/python3
# Wide-tree workload for GET /allocation_candidates (issue 12).
#
#   bench/wide-trees.py URL [--roots R] [--children C] [--units U]
#                       [--access-log FILE] [--repeat N] [--skip-load]
#                       [--cases CASES] [--md5]
#
# Loads R compute roots, each with C children holding U units of
# CUSTOM_WIDE (and 2 units of CUSTOM_PF_ODD on every odd child), through
# the API of a mod_placement (or upstream) server in noauth2 mode, then
# asks each case N times (after one warm-up) and prints one line per case:
# candidates returned, client p50 ms and, with --access-log (the
# server's "%D" LogFormat field as the last one, as bench/mod-httpd.sh
# writes it), server p50 / max ms.
#
# A case is GROUPS:POLICY:LIMIT[:extra query], e.g. 65:none:1000 (65
# groups of CUSTOM_WIDE:1 each, group_policy=none, limit=1000). The
# default cases cover satisfiable and unsatisfiable requests, both
# policies and limit 10 to 1000. With --md5, each case is asked once and
# the md5 of the answer's bytes is printed instead (to compare two servers
# on the same database byte for byte).
import argparse
import hashlib
import json
import statistics
import sys
import time
import urllib.request
import uuid

HDR = {'x-auth-token': 'admin', 'openstack-api-version': 'placement 1.39',
       'content-type': 'application/json', 'accept': 'application/json'}

DEFAULT_CASES = [
    '64:none:10', '64:none:1000', '64:isolate:10', '64:isolate:1000',
    '65:none:1000', '65:isolate:1000', '32:isolate:1000', '16:none:1000',
    '64:none:1000:odd', '64:isolate:1000:odd',
]


def call(url, method='GET', body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=HDR)
    try:
        with urllib.request.urlopen(req) as r:
            raw = r.read()
            return r.status, (json.loads(raw) if raw else None)
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def load(base, roots, children, units):
    for rc in ('CUSTOM_WIDE', 'CUSTOM_PF_ODD'):
        call(base + '/resource_classes/' + rc, 'PUT')
    for r in range(roots):
        ru = str(uuid.uuid4())
        st, _ = call(base + '/resource_providers', 'POST',
                     {'name': 'wide-root-%d' % r, 'uuid': ru})
        assert st == 200, st
        for c in range(children):
            cu = str(uuid.uuid4())
            st, _ = call(base + '/resource_providers', 'POST',
                         {'name': 'wide-%d-%d' % (r, c), 'uuid': cu,
                          'parent_provider_uuid': ru})
            assert st == 200, st
            inv = {'CUSTOM_WIDE': {'total': units}}
            if c % 2:
                inv['CUSTOM_PF_ODD'] = {'total': 2}
            st, _ = call(base + '/resource_providers/%s/inventories' % cu,
                         'PUT', {'resource_provider_generation': 0,
                                 'inventories': inv})
            assert st == 200, st


def query(case):
    parts = case.split(':')
    groups, policy, limit = int(parts[0]), parts[1], int(parts[2])
    extra = parts[3] if len(parts) > 3 else ''
    q = ['resources%d=CUSTOM_WIDE:1' % (i + 1) for i in range(groups)]
    if extra == 'odd':
        # the last group also wants CUSTOM_PF_ODD: half the children
        q[-1] += ',CUSTOM_PF_ODD:1'
    q.append('group_policy=' + policy)
    q.append('limit=%d' % limit)
    return '/allocation_candidates?' + '&'.join(q)


def server_times(log, n):
    with open(log) as f:
        lines = f.readlines()[-n:]
    return [int(l.split()[-1]) / 1000.0 for l in lines]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('url')
    ap.add_argument('--roots', type=int, default=1)
    ap.add_argument('--children', type=int, default=64)
    ap.add_argument('--units', type=int, default=1)
    ap.add_argument('--repeat', type=int, default=5)
    ap.add_argument('--access-log')
    ap.add_argument('--skip-load', action='store_true')
    ap.add_argument('--md5', action='store_true')
    ap.add_argument('--cases', default=','.join(DEFAULT_CASES))
    a = ap.parse_args()
    base = a.url.rstrip('/')
    if not a.skip_load:
        t = time.time()
        load(base, a.roots, a.children, a.units)
        print('# loaded %d roots x %d children x %d units in %.1f s'
              % (a.roots, a.children, a.units, time.time() - t))
    if a.md5:
        for case in a.cases.split(','):
            req = urllib.request.Request(base + query(case), headers=HDR)
            with urllib.request.urlopen(req) as r:
                raw = r.read()
            print('%-26s %s %d' % (case, hashlib.md5(raw).hexdigest(),
                                   len(raw)))
        return
    print('# %-24s %6s %6s %10s %10s %10s' % ('case', 'cands', 'roots',
                                             'client50', 'server50',
                                             'servermax'))
    for case in a.cases.split(','):
        url = base + query(case)
        st, body = call(url)           # warm-up
        assert st == 200, (st, body)
        times = []
        for _ in range(a.repeat):
            t = time.time()
            st, body = call(url)
            times.append((time.time() - t) * 1000)
        ncand = len(body['allocation_requests'])
        nroots = len({s['root_provider_uuid'] if 'root_provider_uuid' in s
                      else k for k, s in body['provider_summaries'].items()})
        if a.access_log:
            time.sleep(0.2)
            srv = server_times(a.access_log, a.repeat)
            s50, smax = statistics.median(srv), max(srv)
        else:
            s50 = smax = float('nan')
        print('%-26s %6d %6d %10.1f %10.1f %10.1f'
              % (case, ncand, nroots, statistics.median(times), s50, smax))
        sys.stdout.flush()


if __name__ == '__main__':
    main()
