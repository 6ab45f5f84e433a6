#!/usr/bin/python3
"""Ask two servers on one database the same random allocation-candidate
queries and report every answer that differs (status or bytes; error
bodies' request ids aside). For a change to how candidates are read or
built: its answers must be the old build's.

usage: bench/compare-answers.py URL_A URL_B [--n 1000] [--seed 1]
           [--aggregates UUID,...] [--trees UUID,...]

The queries mix one to four groups (unsuffixed, numbered, named),
resources of VCPU, MEMORY_MB, DISK_GB and SRIOV_NET_VF (small to large
amounts), required and forbidden traits and any-of sets of the bench's
traits, member_of (one aggregate or in:), in_tree, group_policy,
same_subtree, root_required, limit 1 to 3000, at microversions 1.25 to
1.39 (some are refused with 400 at some: both must refuse alike).
--aggregates and --trees default to the bench's static aggregate and to
none (in_tree is then left out); bench/load-sql.py's data fits them.
Last line: "queries N, statuses {...}, differences M"; exit 1 if M > 0.
"""
import argparse
import random
import re
import sys
import urllib.error
import urllib.request

TRAITS = ['HW_CPU_X86_SSE42', 'HW_CPU_X86_AVX2', 'HW_NIC_SRIOV',
          'CUSTOM_BENCH_RACK_0', 'CUSTOM_BENCH_RACK_1', 'CUSTOM_PHYSNET_A',
          'HW_NUMA_ROOT', 'CUSTOM_FOO', 'COMPUTE_VOLUME_MULTI_ATTACH',
          'COMPUTE_STATUS_DISABLED']
CLASSES = [('VCPU', [1, 2, 4, 64]), ('MEMORY_MB', [256, 512, 4096]),
           ('DISK_GB', [10, 100, 5000]), ('SRIOV_NET_VF', [1, 2])]
STATIC_AGG = '14a5c8a3-5a99-4e8f-88be-00d85fcb1c17'


class Queries:
    def __init__(self, seed, aggs, trees):
        self.rnd = random.Random(seed)
        self.aggs = aggs
        self.trees = trees

    def resources(self):
        r = self.rnd
        return ','.join('%s:%d' % (rc, r.choice(amounts))
                        for rc, amounts in r.sample(CLASSES, r.randint(1, 3)))

    def traits(self):
        r = self.rnd
        out = []
        for _ in range(r.randint(1, 2)):
            if r.random() < 0.3:
                out.append('in:' + ','.join(r.sample(TRAITS, 2)))
            else:
                out.append(','.join(('!' if r.random() < 0.3 else '') + t
                                    for t in r.sample(TRAITS,
                                                      r.randint(1, 2))))
        return out

    def query(self):
        r = self.rnd
        groups = [''] if r.random() < 0.8 else []
        for _ in range(r.randint(0, 3)):
            groups.append(r.choice(['1', '2', '3', '_A', '_B']))
        groups = list(dict.fromkeys(groups)) or ['']
        q = []
        for g in groups:
            q.append('resources%s=%s' % (g, self.resources()))
            if r.random() < 0.4:
                q += ['required%s=%s' % (g, t) for t in self.traits()]
            if r.random() < 0.3:
                if r.random() < 0.5 or len(self.aggs) < 2:
                    q.append('member_of%s=%s' % (g, r.choice(self.aggs)))
                else:
                    q.append('member_of%s=in:%s' %
                             (g, ','.join(r.sample(self.aggs, 2))))
            if self.trees and r.random() < 0.05:
                q.append('in_tree%s=%s' % (g, r.choice(self.trees)))
        if len(groups) > 1 or r.random() < 0.2:
            q.append('group_policy=' + r.choice(['none', 'isolate']))
        suffixed = [g for g in groups if g]
        if len(suffixed) >= 2 and r.random() < 0.15:
            q.append('same_subtree=' + ','.join(r.sample(suffixed, 2)))
        if r.random() < 0.2:
            q.append('root_required=' + ','.join(
                ('!' if r.random() < 0.4 else '') + t
                for t in r.sample(TRAITS, r.randint(1, 2))))
        if r.random() < 0.7:
            q.append('limit=%d' % r.choice([1, 5, 50, 300, 1000, 3000]))
        return '&'.join(q), r.choice(['1.39', '1.36', '1.33', '1.29',
                                      '1.25'])


def ask(base, query, mv):
    req = urllib.request.Request(
        base.rstrip('/') + '/allocation_candidates?' + query,
        headers={'x-auth-token': 'admin',
                 'openstack-api-version': 'placement ' + mv})
    try:
        with urllib.request.urlopen(req, timeout=300) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, re.sub(rb'req-[0-9a-f-]+', b'REQ', e.read())


def main():
    p = argparse.ArgumentParser()
    p.add_argument('url_a')
    p.add_argument('url_b')
    p.add_argument('--n', type=int, default=1000)
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--aggregates', default=STATIC_AGG)
    p.add_argument('--trees', default='')
    a = p.parse_args()
    gen = Queries(a.seed, a.aggregates.split(','),
                  [t for t in a.trees.split(',') if t])
    statuses, differences = {}, 0
    for _ in range(a.n):
        query, mv = gen.query()
        x, y = ask(a.url_a, query, mv), ask(a.url_b, query, mv)
        statuses[x[0]] = statuses.get(x[0], 0) + 1
        if x != y:
            differences += 1
            print('differs at %s: %s: %d, %d bytes / %d, %d bytes' %
                  (mv, query, x[0], len(x[1]), y[0], len(y[1])))
    print('queries %d, statuses %s, differences %d' %
          (a.n, dict(sorted(statuses.items())), differences))
    return 1 if differences else 0


if __name__ == '__main__':
    sys.exit(main())
