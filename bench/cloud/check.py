#!/usr/bin/python3
"""What a run of the cloud asserts (nothing about timing).

    check.py overcommit --db URL
        every provider/class whose allocations exceed
        (total - reserved) * allocation_ratio; exit 1 if any.
    check.py compare --a URL_A --b URL_B --desc FILE [--sample 200] [--seed 1]
        two servers on the same database: the periodic reads of nova's
        resource tracker for a sample of the computes of FILE (build.py's
        description), asked of both and compared as JSON; exit 1 on any
        difference.
    check.py truth --a URL_A --db URL --desc FILE [--sample 200] [--seed 1]
        the same reads of one server, compared with what the database says.

The reads, per sampled compute (root) and per provider of its tree:
  GET /resource_providers/{root}/allocations        1.0
  GET /resource_providers?in_tree={root}            1.14
  GET /resource_providers/{rp}/aggregates           1.19
  GET /resource_providers/{rp}/traits               1.6
  GET /resource_providers/{root}/usages             1.0
Lists whose order upstream leaves unspecified are compared sorted (traits,
aggregates; providers by uuid). The database is read with psql (the DB URL
as postgresql://user:pass@host:port/db).
"""
import argparse
import json
import random
import subprocess
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 't', 'lib'))
from placement_client import Api  # noqa: E402

READS = (('allocations', '1.0'), ('in_tree', '1.14'), ('aggregates', '1.19'),
         ('traits', '1.6'), ('usages', '1.0'))
MV = dict(READS)


# ---------------------------------------------------------------- database
def psql_url(url):
    """SQLAlchemy's spellings to libpq's."""
    for pre in ('postgresql+psycopg2://', 'postgres://', 'pgsql://'):
        if url.startswith(pre):
            return 'postgresql://' + url[len(pre):]
    return url


def sql(url, query):
    """Rows of a query (lists of strings; None for NULL) via psql."""
    out = subprocess.run(
        ['psql', '-X', '-q', '-A', '-t', '-F', '\x1f', '-P', 'null=\x1e',
         '-v', 'ON_ERROR_STOP=1', '-d', psql_url(url), '-c', query],
        check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout
    rows = []
    for line in out.split('\n'):
        if line == '':
            continue
        rows.append([None if c == '\x1e' else c for c in line.split('\x1f')])
    return rows


def overcommit(a):
    rows = sql(a.db, """
SELECT rp.uuid, rp.name, rc.name, i.total, i.reserved, i.allocation_ratio,
       COALESCE(u.used, 0),
       COALESCE(u.used, 0) > (i.total - i.reserved) * i.allocation_ratio
FROM inventories i
JOIN resource_providers rp ON rp.id = i.resource_provider_id
JOIN resource_classes rc ON rc.id = i.resource_class_id
LEFT JOIN (SELECT resource_provider_id, resource_class_id, sum(used) AS used
           FROM allocations GROUP BY 1, 2) u
  ON u.resource_provider_id = i.resource_provider_id
 AND u.resource_class_id = i.resource_class_id
ORDER BY rp.id, rc.name""")
    bad = [r for r in rows if r[7] == 't']
    for r in bad:
        print('over: provider %s (%s) %s used %s > (total %s - reserved %s) * %s'
              % (r[0], r[1], r[2], r[6], r[3], r[4], r[5]))
    # allocations of a class the provider has no inventory of are over too
    orphans = sql(a.db, """
SELECT rp.uuid, rp.name, rc.name, sum(a.used)
FROM allocations a
JOIN resource_providers rp ON rp.id = a.resource_provider_id
JOIN resource_classes rc ON rc.id = a.resource_class_id
LEFT JOIN inventories i ON i.resource_provider_id = a.resource_provider_id
                       AND i.resource_class_id = a.resource_class_id
WHERE i.id IS NULL GROUP BY 1, 2, 3""")
    for r in orphans:
        print('over: provider %s (%s) %s used %s without inventory' % tuple(r))
    print('overcommit: %d of %d provider classes' % (len(bad) + len(orphans), len(rows)))
    return 1 if bad or orphans else 0


# ------------------------------------------------------------------- http
def server(url):
    """A kept-alive client of one Placement server (t/lib's)."""
    return Api(url if '//' in url else 'http://' + url)


def normalize(x):
    """Order-insensitive where upstream's order is unspecified."""
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            v = normalize(v)
            if k in ('traits', 'aggregates') and isinstance(v, list):
                v = sorted(v)
            elif k == 'resource_providers' and isinstance(v, list):
                v = sorted(v, key=lambda p: p.get('uuid', '') if isinstance(p, dict) else '')
            out[k] = v
        return out
    if isinstance(x, list):
        return [normalize(v) for v in x]
    return x


def answer(api, path, mv):
    status, doc = api.call('GET', path, mv=mv)
    return status, normalize(doc)


def read_desc(path):
    trees = []
    with open(path) as f:
        for line in f:
            if line.startswith('CN '):
                w = line.split()
                k = int(w[3])
                trees.append((w[2], w[4:4 + k]))
    return trees


def sample(trees, n, seed):
    if n >= len(trees):
        return list(trees)
    return random.Random(seed).sample(trees, n)


def requests_for(root, tree):
    """(kind, path) of the reads nova's resource tracker makes for a tree."""
    out = [('allocations', '/resource_providers/%s/allocations' % root),
           ('in_tree', '/resource_providers?in_tree=%s' % root)]
    for u in tree:
        out.append(('aggregates', '/resource_providers/%s/aggregates' % u))
        out.append(('traits', '/resource_providers/%s/traits' % u))
    out.append(('usages', '/resource_providers/%s/usages' % root))
    return out


class Tally:
    def __init__(self, what):
        self.what, self.total, self.bad = what, 0, 0

    def add(self, path, mv, equal, left, right, lname, rname):
        self.total += 1
        if equal:
            return
        self.bad += 1
        if self.bad <= 5:
            print('MISMATCH %s (placement %s)' % (path, mv))
            print('  %s: %s' % (lname, json.dumps(left, sort_keys=True)[:4000]))
            print('  %s: %s' % (rname, json.dumps(right, sort_keys=True)[:4000]))
        else:
            print('MISMATCH %s (placement %s)' % (path, mv))

    def done(self):
        print('%s: %d of %d answers equal' % (self.what, self.total - self.bad, self.total))
        return 1 if self.bad or not self.total else 0


def compare(a):
    sa, sb = server(a.a), server(a.b)
    t = Tally('compare')
    for root, tree in sample(read_desc(a.desc), a.sample, a.seed):
        for kind, path in requests_for(root, tree):
            ra = answer(sa, path, MV[kind])
            rb = answer(sb, path, MV[kind])
            t.add(path, MV[kind], ra == rb, ra, rb, 'A', 'B')
    return t.done()


# ------------------------------------------------------------------ truth
def quoted(uuids):
    return ', '.join("'%s'" % u.replace("'", "''") for u in uuids)


def truth(a):
    trees = sample(read_desc(a.desc), a.sample, a.seed)
    roots = [r for r, _ in trees]
    allu = sorted({u for _, t in trees for u in t})
    qr, qa = quoted(roots), quoted(allu)

    gen = {}
    provs = {r: [] for r in roots}
    for u, name, g, parent, root in sql(a.db, """
SELECT rp.uuid, rp.name, rp.generation, p.uuid, r.uuid
FROM resource_providers rp JOIN resource_providers r ON r.id = rp.root_provider_id
LEFT JOIN resource_providers p ON p.id = rp.parent_provider_id
WHERE r.uuid IN (%s) OR rp.uuid IN (%s)""" % (qr, qa)):
        gen[u] = int(g)
        if root in provs:
            provs[root].append({'uuid': u, 'name': name, 'generation': int(g),
                                'parent_provider_uuid': parent,
                                'root_provider_uuid': root})
    allocs = {r: {} for r in roots}
    for root, cons, rc, used in sql(a.db, """
SELECT rp.uuid, a.consumer_id, rc.name, sum(a.used)
FROM allocations a JOIN resource_providers rp ON rp.id = a.resource_provider_id
JOIN resource_classes rc ON rc.id = a.resource_class_id
WHERE rp.uuid IN (%s) GROUP BY 1, 2, 3""" % qr):
        allocs[root].setdefault(cons, {'resources': {}})['resources'][rc] = int(used)
    usages = {r: {} for r in roots}
    for root, rc, used in sql(a.db, """
SELECT rp.uuid, rc.name, COALESCE(sum(a.used), 0)
FROM inventories i JOIN resource_providers rp ON rp.id = i.resource_provider_id
JOIN resource_classes rc ON rc.id = i.resource_class_id
LEFT JOIN allocations a ON a.resource_provider_id = i.resource_provider_id
                       AND a.resource_class_id = i.resource_class_id
WHERE rp.uuid IN (%s) GROUP BY 1, 2""" % qr):
        usages[root][rc] = int(used)
    aggs = {u: [] for u in allu}
    for u, ag in sql(a.db, """
SELECT rp.uuid, pa.uuid FROM resource_provider_aggregates x
JOIN resource_providers rp ON rp.id = x.resource_provider_id
JOIN placement_aggregates pa ON pa.id = x.aggregate_id
WHERE rp.uuid IN (%s)""" % qa):
        aggs[u].append(ag)
    traits = {u: [] for u in allu}
    for u, tn in sql(a.db, """
SELECT rp.uuid, t.name FROM resource_provider_traits x
JOIN resource_providers rp ON rp.id = x.resource_provider_id
JOIN traits t ON t.id = x.trait_id
WHERE rp.uuid IN (%s)""" % qa):
        traits[u].append(tn)

    sa = server(a.a)
    t = Tally('truth')
    for root, tree in trees:
        for kind, path in requests_for(root, tree):
            mv = MV[kind]
            status, doc = answer(sa, path, mv)
            u = path.split('/')[2] if kind in ('aggregates', 'traits') else root
            if kind == 'allocations':
                want = {'allocations': allocs[root],
                        'resource_provider_generation': gen.get(root)}
                got = doc
            elif kind == 'usages':
                want = {'usages': usages[root],
                        'resource_provider_generation': gen.get(root)}
                got = doc
            elif kind == 'in_tree':
                keys = ('uuid', 'name', 'generation', 'parent_provider_uuid',
                        'root_provider_uuid')
                want = {'resource_providers': sorted(provs[root], key=lambda p: p['uuid'])}
                got = doc
                if isinstance(doc, dict) and isinstance(doc.get('resource_providers'), list):
                    got = {'resource_providers': [
                        {k: p.get(k) for k in keys} for p in doc['resource_providers']]}
            else:
                want = {kind: sorted((aggs if kind == 'aggregates' else traits)[u]),
                        'resource_provider_generation': gen.get(u)}
                got = doc
            t.add(path, mv, status == 200 and got == want, [status, got], [200, want],
                  'server', 'database')
    return t.done()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    o = sub.add_parser('overcommit')
    o.add_argument('--db', required=True)
    o.set_defaults(func=overcommit)
    c = sub.add_parser('compare')
    c.add_argument('--a', required=True)
    c.add_argument('--b', required=True)
    c.add_argument('--desc', required=True)
    c.add_argument('--sample', type=int, default=200)
    c.add_argument('--seed', type=int, default=1)
    c.set_defaults(func=compare)
    t = sub.add_parser('truth')
    t.add_argument('--a', required=True)
    t.add_argument('--db', required=True)
    t.add_argument('--desc', required=True)
    t.add_argument('--sample', type=int, default=200)
    t.add_argument('--seed', type=int, default=1)
    t.set_defaults(func=truth)
    a = ap.parse_args()
    sys.exit(a.func(a))


if __name__ == '__main__':
    main()
