#!/usr/bin/python3
"""The tables of a bench/cloud/run: one row per size and server, then the
headline, computes per core, for each server at the largest size where it
kept its objectives.

    bench/cloud/summary.py OUT_DIR

Reads OUT_DIR/<N>-<server>.json (the generator's statistics), .cpu (cores
used by the server's processes and by PostgreSQL), .rss (their peak
memory), .check (overcommit and the answers compared) and ceiling.json.

The objectives (issue 37): every scheduling request (quota usages,
allocation candidates, claims) answered in p99 <= 100 ms and every periodic
read of a compute in p99 <= 50 ms, with no 5xx and no network error. A
rack's restart (forty computes at once) is a class of its own: its p99 is
shown, the objectives are the steady cloud's.
"""
import glob
import json
import os
import re
import sys

SCHED_P99_MS = 100.0
PERIODIC_P99_MS = 50.0


def read_kv(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            parts = line.split()
            if len(parts) == 2:
                try:
                    out[parts[0]] = float(parts[1])
                except ValueError:
                    pass
    return out


def rss_peaks(path):
    """[server tree MiB, PostgreSQL tree MiB] (procstat.py watch order)."""
    if not os.path.exists(path):
        return [0.0, 0.0]
    return [float(line.split()[1]) for line in open(path)][:2]


def check_text(path):
    if not os.path.exists(path):
        return 'no check'
    text = open(path).read()
    over = re.search(r'overcommit: (\d+) of (\d+)', text)
    comp = re.search(r'compare: (\d+) of (\d+) answers equal', text)
    return '%s overcommitted; %s answers equal' % (
        over.group(1) if over else '?',
        '%s/%s' % comp.groups() if comp else '?')


def errors(stats):
    return sum(c.get('5xx', 0) + c.get('neterr', 0)
               for c in stats['classes'].values())


def row(out, n, server):
    stats = json.load(open(os.path.join(out, '%d-%s.json' % (n, server))))
    cpu = read_kv(os.path.join(out, '%d-%s.cpu' % (n, server)))
    rss = rss_peaks(os.path.join(out, '%d-%s.rss' % (n, server)))
    cls = stats['classes']
    sched, periodic = cls.get('sched', {}), cls.get('periodic', {})
    cores = cpu.get('server_cores', 0) + cpu.get('db_cores', 0)
    kept = (sched.get('p99_ms', 1e9) <= SCHED_P99_MS
            and periodic.get('p99_ms', 1e9) <= PERIODIC_P99_MS
            and errors(stats) == 0)
    return {
        'n': n, 'server': server, 'kept': kept,
        'rps': stats['overall'].get('requests_per_s', 0),
        'server_cores': cpu.get('server_cores', 0),
        'db_cores': cpu.get('db_cores', 0),
        'per_core': n / cores if cores else 0,
        'per_core_s': (stats['overall'].get('requests_per_s', 0) / cores
                       if cores else 0),
        'sched': sched, 'periodic': periodic,
        'listing': cls.get('listing', {}),
        'rack': cls.get('rackstart', {}),
        'errors': errors(stats), 'flows': stats.get('flows', {}),
        'rss': rss, 'check': check_text(
            os.path.join(out, '%d-%s.check' % (n, server))),
    }


def ms(c, key):
    key += '_ms'
    return '%.1f' % c[key] if key in c else '-'


def main(out):
    runs = sorted({(int(m.group(1)), m.group(2)) for m in (
        re.match(r'(\d+)-(mod|ref)\.json$', os.path.basename(p))
        for p in glob.glob(os.path.join(out, '*-*.json'))) if m})
    if os.path.exists(os.path.join(out, 'ceiling.json')):
        ceil = json.load(open(os.path.join(out, 'ceiling.json')))['overall']
        print('The generator against a static file (its ceiling): %.0f '
              'requests/s, %.2f s of its CPU per second\n' % (
                  ceil.get('requests_per_s', 0),
                  ceil.get('cpu_s', 0) / max(ceil.get('duration_s', 1), 1e-9)))
    print('| computes | server | req/s | server cores | DB cores | requests '
          'per core-second | computes per core used | sched p50 / p99 ms | periodic p50 / p99 ms | rack start '
          'p99 ms | listing p99 ms | 5xx+net | placed / NoValidHost | server / DB peak MiB | '
          'objectives | checks |')
    print('|' + '---|' * 16)
    rows = [row(out, n, s) for n, s in runs]
    for r in rows:
        f = r['flows']
        print('| %d | %s | %.0f | %.2f | %.2f | %.0f | %s | %s / %s | %s / %s | %s '
              '| %s | %d | %s / %s | %.0f / %.0f | %s | %s |' % (
                  r['n'], r['server'], r['rps'], r['server_cores'],
                  r['db_cores'], r['per_core_s'],
                  # a run that did not keep up used a core for less than
                  # its cloud: N / cores would flatter it
                  '%.0f' % r['per_core'] if r['kept'] else '-',
                  ms(r['sched'], 'p50'),
                  ms(r['sched'], 'p99'), ms(r['periodic'], 'p50'),
                  ms(r['periodic'], 'p99'), ms(r['rack'], 'p99'),
                  ms(r['listing'], 'p99'),
                  r['errors'], f.get('placed', '-'), f.get('novalidhost', '-'),
                  r['rss'][0], r['rss'][1],
                  'kept' if r['kept'] else 'missed', r['check']))
    print()
    # The server and PostgreSQL share one core (CPU 1), so the largest size
    # whose objectives hold is the computes one core carries; N / cores used
    # is what each compute costs at that size.
    best = {}
    for r in rows:
        if r['kept'] and r['n'] >= best.get(r['server'], {'n': -1})['n']:
            best[r['server']] = r
    largest = max((r['n'] for r in rows), default=0)
    for server, r in sorted(best.items()):
        print('%s: carries %s%d computes on one core (server and database '
              'together); at that size it used %.2f + %.2f cores, %.0f '
              'computes per core used' % (
                  server, '>= ' if r['n'] == largest else '', r['n'],
                  r['server_cores'], r['db_cores'], r['per_core']))
    if 'mod' in best and 'ref' in best:
        print('computes carried per core, mod_placement / reference: %s%.1fx' % (
            '>= ' if best['mod']['n'] == largest else '',
            best['mod']['n'] / best['ref']['n']))

if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
