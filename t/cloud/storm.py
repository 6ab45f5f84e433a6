#!/usr/bin/python3
"""The boot storm on the cloud of scripts/cloud (issue 24).

    storm.py DIR [COUNT [THREADS]]

COUNT (default 50) m1.tiny servers requested at once by THREADS (default
10) threads of project demo, each making its share of single
POST /servers calls back to back. The two hosts hold 16 of them (8 VCPU
each, no overcommit), so most are refused. Checks: every server ends
ACTIVE, or ERROR with NoValidHost and nothing allocated (or its POST was
refused with a 4xx); every ACTIVE server holds exactly m1.tiny on its
host; no provider is overcommitted (usage <= (total - reserved) x
allocation_ratio for every class); after deleting them all nothing is left.
Prints the figures: time to settle, servers booted per minute, and from
the module's /placement-metrics the allocation conflicts it retried and
the 409s it answered (with REFERENCE=1 there are no metrics). Last line:
"storm: N passed, M failed".
"""

import os
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scenario  # noqa: E402
from scenario import check, Cloud, cloudapi  # noqa: E402


def metrics(c):
    """{sample name with labels: value} of /placement-metrics, or None."""
    url = c.env['CLOUD_URL'] + '/placement-metrics'
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            text = resp.read().decode()
    except OSError:
        return None
    out = {}
    for line in text.splitlines():
        # name{labels} value; a label value may hold braces ({uuid})
        if line.startswith('placement_') and ' ' in line:
            key, value = line.rsplit(' ', 1)
            try:
                out[key] = float(value)
            except ValueError:
                pass
    return out


def delta(after, before, pred):
    return sum(v - before.get(k, 0) for k, v in after.items() if pred(k))


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    count = int(argv[2]) if len(argv) > 2 else 50
    threads = int(argv[3]) if len(argv) > 3 else 10
    c = Cloud(argv[1])
    project = c.demo.project_id
    c.admin.nova('PUT', '/os-quota-sets/%s' % project, {'quota_set': {
        'instances': -1, 'cores': -1, 'ram': -1}})
    m0 = metrics(c)
    ids, refused, errors = [], [], []
    lock = threading.Lock()

    def worker(n):
        for i in range(n):
            try:
                st, doc = c.demo.call('compute', 'POST', '/servers', {
                    'server': {'name': 'storm', 'networks': 'none',
                               'flavorRef': c.flavors['m1.tiny']['id'],
                               'imageRef': c.image['id']}},
                    version='2.90', expect=(202, 403, 409))
            except cloudapi.ApiError as exc:
                with lock:
                    errors.append(str(exc))
                continue
            with lock:
                if st == 202:
                    ids.append(doc['server']['id'])
                else:
                    refused.append(st)

    t0 = time.monotonic()
    per = [count // threads + (1 if i < count % threads else 0)
           for i in range(threads)]
    pool = [threading.Thread(target=worker, args=(n,)) for n in per]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    t_api = time.monotonic() - t0
    check('every POST /servers answered 202 or a clean 4xx',
          not errors, errors[:3])
    final = {}
    for sid in ids:
        final[sid] = c.wait_status(sid, ('ACTIVE', 'ERROR'), timeout=600)
    t_all = time.monotonic() - t0
    active = [s for s in final.values() if s['status'] == 'ACTIVE']
    error = [s for s in final.values() if s['status'] == 'ERROR']
    print('# storm: %d requested by %d threads: API %.1fs, settled %.1fs; '
          '%d ACTIVE, %d ERROR, %d refused by the API; %.1f servers '
          'booted per minute' % (count, threads, t_api, t_all, len(active),
                                 len(error), len(refused),
                                 60.0 * len(active) / t_all), flush=True)
    check('every server is ACTIVE or ERROR',
          len(active) + len(error) == len(ids))
    check('the two hosts are filled: 16 servers ACTIVE', len(active) == 16,
          len(active))
    bad = [s['id'] for s in error
           if 'No valid host' not in (s.get('fault') or {}).get('message',
                                                                 '')]
    check('every ERROR server failed with NoValidHost', not bad, bad[:3])
    leaked = [s['id'] for s in error if c.allocations(s['id'])]
    check('no ERROR server holds an allocation', not leaked, leaked[:3])
    wrong = [s['id'] for s in active
             if c.allocations(s['id']) !=
             c.expected('m1.tiny', scenario.host_of(s))]
    check('every ACTIVE server holds m1.tiny on its host', not wrong,
          wrong[:3])
    for name, rp in c.providers().items():
        inv = c.admin.placement('GET', '/resource_providers/%s/inventories'
                                % rp['uuid'])['inventories']
        use = c.admin.placement('GET', '/resource_providers/%s/usages'
                                % rp['uuid'])['usages']
        over = {rc: (use.get(rc, 0), i) for rc, i in inv.items()
                if use.get(rc, 0) > (i['total'] - i['reserved']) *
                i['allocation_ratio']}
        check('%s is not overcommitted' % name, not over, over)
        print('# %s usage %s' % (name, {rc: '%d/%d' % (use.get(rc, 0),
                                                      i['total'])
                                        for rc, i in inv.items()}))
    m1 = metrics(c)
    if m0 is not None and m1 is not None:
        retries = delta(m1, m0, lambda k: k.startswith(
            'placement_allocation_conflict_retries_total'))
        deadlocks = delta(m1, m0, lambda k: k.startswith(
            'placement_allocation_deadlock_retries_total'))
        conflicts = delta(m1, m0, lambda k: k.startswith(
            'placement_requests_total') and 'allocations' in k and
            'status="4xx"' in k)
        puts = delta(m1, m0, lambda k: k.startswith(
            'placement_requests_total') and 'allocations' in k and
            ('PUT' in k or 'POST' in k))
        print('# placement: %d allocation writes, %d answered 4xx '
              '(conflicts nova retried), %d generation conflicts and %d '
              'deadlocks retried inside the module'
              % (puts, conflicts, retries, deadlocks), flush=True)
        check('placement metrics count the allocation writes (at least one '
              'per ACTIVE server)', puts >= len(active), puts)
    else:
        print('# placement metrics: none (reference placement)')
    t1 = time.monotonic()
    for sid in ids:
        c.admin.nova('DELETE', '/servers/%s' % sid)
    for sid in ids:
        def gone(sid=sid):
            st, _ = c.admin.call('compute', 'GET', '/servers/%s' % sid,
                                 expect=(200, 404))
            return st == 404
        cloudapi.wait('server %s deleted' % sid, gone, timeout=300)
    print('# storm: %d servers deleted in %.1fs'
          % (len(ids), time.monotonic() - t1))
    left = {k: v for k, v in c.usages(project).items() if v}
    check('after the storm the project uses nothing', not left, left)
    c.admin.nova('DELETE', '/os-quota-sets/%s' % project)
    print('storm: %d passed, %d failed' % (len(scenario.PASSED),
                                           len(scenario.FAILED)))
    return 1 if scenario.FAILED else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
