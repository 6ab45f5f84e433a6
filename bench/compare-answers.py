#!/usr/bin/python3
"""Ask two servers on one database the same random allocation-candidate
queries and report every answer that differs (status or bytes; error
bodies' request ids aside). For a change to how candidates are read or
built: its answers must be the old build's.

usage: bench/compare-answers.py URL_A URL_B [--n 1000] [--seed 1]
           [--aggregates UUID,...] [--trees UUID,...] [--wide P]
           [--providers P] [--reference] [--load SEED] [--sets]

The queries mix one to four groups (unsuffixed, numbered, named),
resources of VCPU, MEMORY_MB, DISK_GB and SRIOV_NET_VF (small to large
amounts), required and forbidden traits and any-of sets of the bench's
traits, member_of (one aggregate or in:), in_tree, group_policy,
same_subtree, root_required, limit 1 to 3000, at microversions 1.25 to
1.39 (some are refused with 400 at some: both must refuse alike).
--aggregates and --trees default to the bench's static aggregate and to
none (in_tree is then left out); bench/load-sql.py's data fits them.

--load SEED first creates, through URL_A, a small random layout of its
own (seeded): compute nodes, nested trees (NUMA nodes, PFs), sharing
providers (MISC_SHARES_VIA_AGGREGATE, DISK_GB or SRIOV_NET_VF, some of
them inside a tree) in four aggregates, traits and some usage; its
aggregates and roots are then the ones the queries use. The database
should hold nothing else (the queries see the whole of it).

--sets compares as upstream's answers must be compared (its order is a
Python set's, not ours): the allocation requests as a set, the provider
summaries as a map; a query with limit is asked again without it and
both full answers must agree, and each limited answer must have the
same number of candidates, all of them in the full answer. Two kinds of
differences come from bugs of upstream's that we do not copy and are
counted apart (each still printed, tagged): URL_A (the reference)
answering 500 where URL_B answers 200 (a sharing provider inside a tree:
KeyError in _alloc_candidates_multiple_providers; forbidden trait names
passed as ids after member_of emptied its sharing set), and "shared
amounts": with group_policy isolate or none given, the unsuffixed group
and a numbered group asking one class, where upstream adds amounts into
objects several candidates share (its answer then changes from one
process to the next; docs/api-coverage.md), and its candidates, amounts
aside, are all among URL_B's.

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
import uuid

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


def call(base, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        base.rstrip('/') + path, data=data, method=method,
        headers={'x-auth-token': 'admin', 'content-type': 'application/json',
                 'openstack-api-version': 'placement 1.39'})
    with urllib.request.urlopen(req, timeout=300) as resp:
        raw = resp.read()
        return json.loads(raw) if raw else None


class Layout:
    """A small random cloud made through the API, sharing providers
    included (for --load)."""

    def __init__(self, base, seed):
        self.base = base
        self.rnd = random.Random(seed)
        self.aggs = [str(uuid.UUID(int=self.rnd.getrandbits(128)))
                     for _ in range(4)]
        self.roots = []
        self.n = 0

    def provider(self, parent=None):
        u = str(uuid.UUID(int=self.rnd.getrandbits(128)))
        self.n += 1
        body = {'name': 'cmp-%d' % self.n, 'uuid': u}
        if parent:
            body['parent_provider_uuid'] = parent
        call(self.base, 'POST', '/resource_providers', body)
        if parent is None:
            self.roots.append(u)
        return u

    def fill(self, u, invs, traits=(), aggs=()):
        r = self.rnd
        if invs:
            call(self.base, 'PUT', '/resource_providers/%s/inventories' % u, {
                'resource_provider_generation': 0,
                'inventories': {rc: {'total': t, 'allocation_ratio': ratio}
                                for rc, (t, ratio) in invs.items()}})
        gen = call(self.base, 'GET', '/resource_providers/' + u)['generation']
        if traits:
            for t in traits:
                if t.startswith('CUSTOM_'):
                    call(self.base, 'PUT', '/traits/' + t)
            gen = call(self.base, 'PUT', '/resource_providers/%s/traits' % u, {
                'resource_provider_generation': gen,
                'traits': sorted(set(traits))})['resource_provider_generation']
        if aggs:
            call(self.base, 'PUT', '/resource_providers/%s/aggregates' % u, {
                'resource_provider_generation': gen,
                'aggregates': sorted(set(aggs))})
        if invs and r.random() < 0.3:
            rc = r.choice(sorted(invs))
            used = max(1, invs[rc][0] // r.choice([2, 4, 8]))
            call(self.base, 'PUT', '/allocations/' + str(uuid.UUID(
                int=r.getrandbits(128))), {
                'allocations': {u: {'resources': {rc: used}}},
                'project_id': 'p', 'user_id': 'u',
                'consumer_generation': None, 'consumer_type': 'INSTANCE'})

    def some(self, items, top):
        return self.rnd.sample(items, self.rnd.randint(0, top))

    def load(self):
        r = self.rnd
        plain = [t for t in TRAITS if t != 'HW_NUMA_ROOT']
        for _ in range(r.randint(5, 10)):
            invs = {'VCPU': (r.choice([4, 8, 16]), r.choice([1.0, 4.0])),
                    'MEMORY_MB': (r.choice([2048, 4096, 16384]), 1.0)}
            if r.random() < 0.5:
                invs['DISK_GB'] = (r.choice([50, 200, 1000]), 1.0)
            self.fill(self.provider(), invs, self.some(plain, 2),
                      self.some(self.aggs, 2))
        for _ in range(r.randint(2, 3)):
            root = self.provider()
            invs = {'DISK_GB': (r.choice([100, 500]), 1.0)} \
                if r.random() < 0.5 else {}
            self.fill(root, invs, self.some(plain, 2),
                      self.some(self.aggs, 2))
            for _ in range(2):
                numa = self.provider(root)
                self.fill(numa, {'VCPU': (r.choice([4, 8]), 1.0),
                                 'MEMORY_MB': (r.choice([2048, 8192]), 1.0)},
                          ['HW_NUMA_ROOT'] + self.some(plain, 1))
                for _ in range(r.randint(0, 2)):
                    pf = self.provider(numa)
                    self.fill(pf, {'SRIOV_NET_VF': (r.choice([2, 8]), 1.0)},
                              ['HW_NIC_SRIOV'] + self.some(
                                  ['CUSTOM_PHYSNET_A', 'CUSTOM_FOO'], 1))
        for i in range(r.randint(1, 3)):
            parent = r.choice(self.roots) if r.random() < 0.1 else None
            u = self.provider(parent)
            rc = 'SRIOV_NET_VF' if i == 2 else 'DISK_GB'
            self.fill(u, {rc: (r.choice([8, 1000, 10000]), 1.0)},
                      ['MISC_SHARES_VIA_AGGREGATE'] + self.some(plain, 1),
                      r.sample(self.aggs, r.randint(1, 2)))
        return self


def normal(body):
    """An answer as a comparable value: its candidates as a set, its
    summaries as a map."""
    doc = json.loads(body)
    reqs = doc.get('allocation_requests', [])
    cands = set(json.dumps(a, sort_keys=True) for a in (
        [{'allocations': sorted(x['allocations'], key=lambda y: (
            y['resource_provider']['id'], sorted(y['resources'].items())))}
         for x in reqs] if reqs and isinstance(reqs[0]['allocations'], list)
        else [dict(x, mappings={k: sorted(v) for k, v in
                                x.get('mappings', {}).items()})
              for x in reqs]))
    sums = doc.get('provider_summaries', {})
    if isinstance(sums, dict):
        sums = {k: dict(v, traits=sorted(v['traits'])) if 'traits' in v
                else v for k, v in sums.items()}
    return len(reqs), cands, json.dumps(sums, sort_keys=True)


def without_limit(query):
    return '&'.join(kv for kv in query.split('&')
                    if not kv.startswith('limit='))


def shared_amount_shape(query):
    """Whether upstream's shared-amount bug can touch the answer: the
    unsuffixed group and a numbered one ask for a class in common, and
    group_policy is not none (upstream copies amounts only for none)."""
    classes, policy = {}, None
    for kv in query.partition('?')[2].split('&'):
        key, _, value = kv.partition('=')
        if key.startswith('resources'):
            classes[key[len('resources'):]] = set(
                item.split(':')[0] for item in value.split(','))
        elif key == 'group_policy':
            policy = value
    mine = classes.get('', set())
    others = set().union(*[v for k, v in classes.items() if k])
    return policy != 'none' and bool(mine & others)


def structures(cands):
    """The candidates without their amounts: which provider gives which
    class, and the mappings."""
    out = set()
    for c in cands:
        doc = json.loads(c)
        allocs = doc['allocations']
        if isinstance(allocs, dict):
            allocs = sorted((rp, sorted(v['resources'])) for rp, v in
                            allocs.items())
        out.add(json.dumps([allocs, doc.get('mappings')], sort_keys=True))
    return out


def within(cx, cy):
    """' [A within B]' when A's candidates, amounts aside, are all B's (what
    upstream's shared-amount bug leaves: other amounts, fewer candidates)."""
    return ' [A within B]' if structures(cx) <= structures(cy) else ''


def same_sets(a, b, query, mv):
    """--sets: whether two answers are upstream-equal; a reason if not."""
    x, y = ask(a, query, mv), ask(b, query, mv)
    if x[0] != y[0] or x[0] != 200:
        return x[0], (None if x == y else
                      'status/body %d, %d bytes / %d, %d bytes' %
                      (x[0], len(x[1]), y[0], len(y[1])))
    nx, cx, sx = normal(x[1])
    ny, cy, sy = normal(y[1])
    full = without_limit(query)
    if full != query:
        fx, fy = ask(a, full, mv), ask(b, full, mv)
        fnx, fcx, fsx = normal(fx[1])
        fny, fcy, fsy = normal(fy[1])
        if fcx != fcy or fnx != fny or fsx != fsy:
            return 200, 'full answers differ: %d / %d candidates, %d / %d ' \
                'only%s' % (fnx, fny, len(fcx - fcy), len(fcy - fcx),
                            within(fcx, fcy))
        if nx != ny or not cx <= fcx or not cy <= fcy:
            return 200, 'limited answers: %d / %d candidates' % (nx, ny)
        return 200, None
    if cx != cy or nx != ny:
        return 200, '%d / %d candidates, %d / %d only%s' % (
            nx, ny, len(cx - cy), len(cy - cx), within(cx, cy))
    if sx != sy:
        return 200, 'provider summaries differ'
    return 200, None


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
    p.add_argument('--load', type=int, default=None)
    p.add_argument('--sets', action='store_true')
    a = p.parse_args()
    aggs = a.aggregates.split(',')
    trees = [t for t in a.trees.split(',') if t]
    if a.load is not None:
        layout = Layout(a.url_a, a.load).load()
        aggs, trees = layout.aggs, layout.roots
        print('loaded %d providers (%d roots)' % (layout.n, len(trees)))
    gen = Queries(a.seed, aggs, trees, a.wide, a.providers, a.reference)
    statuses, differences, known = {}, 0, {'500': 0, 'shared amounts': 0}
    for _ in range(a.n):
        query, mv = gen.query()
        if a.sets and query.startswith('/allocation_candidates'):
            status, why = same_sets(a.url_a, a.url_b, query, mv)
            tag = None
            if why and status == 500 and ' / 200, ' in why:
                tag = '500'
            elif why and why.endswith('[A within B]') and \
                    shared_amount_shape(query):
                tag = 'shared amounts'
            if tag:
                known[tag] += 1
                print('upstream bug (%s) at %s: %s: %s' % (tag, mv, query, why))
                why = None
        else:
            sets = a.reference or a.sets
            x, y = ask(a.url_a, query, mv, sets), ask(a.url_b, query, mv, sets)
            status, why = x[0], None
            if x != y:
                why = '%d, %d bytes / %d, %d bytes' % (
                    x[0], len(x[1]), y[0], len(y[1]))
        statuses[status] = statuses.get(status, 0) + 1
        if why:
            differences += 1
            print('differs at %s: %s: %s' % (mv, query, why))
    if a.sets:
        print('answers of upstream bugs: %d where URL_A answered 500, %d '
              'of the shared-amount shape' % (known['500'],
                                              known['shared amounts']))
    print('queries %d, statuses %s, differences %d' %
          (a.n, dict(sorted(statuses.items())), differences))
    return 1 if differences else 0


if __name__ == '__main__':
    sys.exit(main())
