#!/usr/bin/python3
"""Ask two servers on one database the same random allocation-candidate
queries and report every answer that differs (status or bytes; error
bodies' request ids aside). For a change to how candidates are read or
built: its answers must be the old build's.

usage: bench/compare-answers.py URL_A URL_B [--n 1000] [--seed 1]
           [--aggregates UUID,...] [--trees UUID,...] [--wide P]
           [--providers P] [--reference]

The queries mix one to four groups (unsuffixed, numbered, named),
resources of VCPU, MEMORY_MB, DISK_GB and SRIOV_NET_VF (small to large
amounts), required and forbidden traits and any-of sets of the bench's
traits, member_of (one aggregate or in:), in_tree, group_policy,
same_subtree, root_required, limit 1 to 3000, at microversions 1.25 to
1.39 (some are refused with 400 at some: both must refuse alike).
--aggregates and --trees default to the bench's static aggregate and to
none (in_tree is then left out); bench/load-sql.py's data fits them.
--wide P: each group is wide with probability P (default 0.1): 5 to 40
more required=in: sets, up to 30 forbidden traits, 2 to 12 more
member_of values (in: sets when there are two aggregates or more), the
kind of request that once cost a subquery per set (issue 23), asked at
1.39; drawn from a random stream of their own, so that --wide 0 asks
what the tool asked before it had the option. --providers P: a share P of the queries is
GET /resource_providers with the filters of the first group (traits at
1.39, member_of, in_tree; resources). --reference: URL_A is upstream's
reference server (../shared/conformance/serve_reference.sh): answers
are compared as sets (lists sorted: upstream lists traits in its own
order), without limit (which candidates a limit keeps is each server's
own order), without forbidden traits (upstream 8.0.0 answers 500 on
PostgreSQL for some: it compares trait ids with their names) and only
queries shorter than its request line limit (8,190 bytes).
Last line: "queries N, statuses {...}, differences M"; exit 1 if M > 0.
"""
import argparse
import json
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
    def __init__(self, seed, aggs, trees, wide=0.0, providers=0.0,
                 reference=False):
        self.rnd = random.Random(seed)
        self.reference = reference
        self.wide_rnd = random.Random('wide-%d' % seed)
        self.wide = wide
        self.providers = providers
        self.aggs = aggs
        self.trees = trees

    def wide_params(self, g):
        """Many any-of sets, forbidden traits and member_of values for
        group g, or none (from the stream of their own)."""
        r = self.wide_rnd
        if r.random() >= self.wide:
            return []
        q = ['required%s=in:%s' % (g, ','.join(r.sample(TRAITS,
                                                        r.randint(2, 4))))
             for _ in range(r.randint(5, 40))]
        if r.random() < 0.5:
            q.append('required%s=%s' % (g, ','.join(
                '!' + t for t in r.sample(TRAITS[2:], r.randint(1, 8)))))
        if r.random() < 0.4:
            for _ in range(r.randint(2, 12)):
                if len(self.aggs) >= 2 and r.random() < 0.6:
                    q.append('member_of%s=in:%s' % (g, ','.join(
                        r.sample(self.aggs,
                                 r.randint(2, min(4, len(self.aggs)))))))
                else:
                    q.append('member_of%s=%s' % (g, r.choice(self.aggs)))
        return q

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
        wide = False
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
            more = self.wide_params(g)
            wide = wide or bool(more)
            q += more
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
        mv = r.choice(['1.39', '1.36', '1.33', '1.29', '1.25'])
        if wide:
            mv = '1.39'
        if self.reference:
            q = self.for_reference(q)
            if len('&'.join(q)) > 7900:
                return self.query()
        if self.wide_rnd.random() < self.providers:
            return '/resource_providers?' + self.provider_query(q), mv
        return '/allocation_candidates?' + '&'.join(q), mv

    @staticmethod
    def for_reference(q):
        """q without limit and forbidden traits (--reference)."""
        out = []
        for param in q:
            key, value = param.split('=', 1)
            if key == 'limit':
                continue
            if key.startswith(('required', 'root_required')) and \
                    not value.startswith('in:'):
                value = ','.join(t for t in value.split(',')
                                 if not t.startswith('!'))
                if not value:
                    continue
            out.append('%s=%s' % (key, value))
        return out

    @staticmethod
    def provider_query(q):
        """The first group's filters as GET /resource_providers takes
        them (no suffix, no limit or group-wide parameters)."""
        first = q[0].split('=', 1)[0][len('resources'):]
        out = []
        for param in q:
            key, value = param.split('=', 1)
            for name in ('resources', 'required', 'member_of', 'in_tree'):
                if key == name + first:
                    out.append('%s=%s' % (name, value))
        return '&'.join(out)


def normalized(body):
    """A JSON answer with every list sorted, recursively."""
    def norm(v):
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        if isinstance(v, list):
            return sorted((norm(x) for x in v),
                          key=lambda x: json.dumps(x, sort_keys=True))
        return v
    try:
        return json.dumps(norm(json.loads(body)), sort_keys=True).encode()
    except ValueError:
        return body


def ask(base, query, mv, sets=False):
    status, body = ask_raw(base, query, mv)
    return status, normalized(body) if sets else body


def ask_raw(base, query, mv):
    req = urllib.request.Request(
        base.rstrip('/') + query,
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
    p.add_argument('--wide', type=float, default=0.1)
    p.add_argument('--providers', type=float, default=0.0)
    p.add_argument('--reference', action='store_true')
    a = p.parse_args()
    gen = Queries(a.seed, a.aggregates.split(','),
                  [t for t in a.trees.split(',') if t], a.wide, a.providers,
                  a.reference)
    statuses, differences = {}, 0
    for _ in range(a.n):
        query, mv = gen.query()
        x = ask(a.url_a, query, mv, a.reference)
        y = ask(a.url_b, query, mv, a.reference)
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
