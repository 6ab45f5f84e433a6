#!/usr/bin/python3
"""Markdown table of the headline figures of two placement_bench result files
(reference first, then mod_placement), with the factor by which the second is
better, and the per-process resident memory.

    bench/summary.py ref.txt mod.txt
"""
import json
import sys


def load(path):
    with open(path) as f:
        for line in reversed(f.read().splitlines()):
            if line.startswith('{'):
                return json.loads(line)
    raise SystemExit('%s: no JSON result line' % path)


def dig(doc, dotted):
    for part in dotted.split('.'):
        if not isinstance(doc, dict) or part not in doc:
            return None
        doc = doc[part]
    return doc


# (label, path, 'low' = lower is better | 'high' | None = no factor)
ROWS = [
    ('gate query: candidates returned', 'read.cold.allocation_requests', None),
    ('gate query: response bytes', 'read.cold.bytes', None),
    ('gate query c=1 p50 ms', 'read.runs.nolimit_c1.p50_ms', 'low'),
    ('gate query c=1 p99 ms', 'read.runs.nolimit_c1.p99_ms', 'low'),
    ('gate query c=10 req/s (python client)', 'read.runs.nolimit_c10.rps', 'high'),
    ('gate query c=10 p50 ms (python client)', 'read.runs.nolimit_c10.p50_ms', 'low'),
    ('gate query c=10 req/s (wrk -t2 -c10)', 'wrk.allocation_candidates.rps', 'high'),
    ('gate query c=10 p50 ms (wrk)', 'wrk.allocation_candidates.p50_ms', 'low'),
    ('gate query server CPU ms/req (wrk run)',
     'wrk.allocation_candidates.cpu.server_cpu_ms_per_request', 'low'),
    ('gate query DB CPU ms/req (wrk run)',
     'wrk.allocation_candidates.cpu.db_cpu_ms_per_request', 'low'),
    ('read phase server CPU ms/req (incl. limit=50)',
     'read.cpu.server_cpu_ms_per_request', 'low'),
    ('read phase DB CPU ms/req', 'read.cpu.db_cpu_ms_per_request', 'low'),
    ('limit=50 c=1 p50 ms', 'read.runs.limit50_c1.p50_ms', 'low'),
    ('limit=50 c=10 req/s', 'read.runs.limit50_c10.rps', 'high'),
    ('load: flat req/s (10 workers)', 'load.flat.rps', 'high'),
    ('load: nested req/s', 'load.nested.rps', 'high'),
    ('load: server CPU ms/req', 'load.cpu.server_cpu_ms_per_request', 'low'),
    ('write: GET limit=5 p50 ms', 'write.get_limit5.p50_ms', 'low'),
    ('write: PUT /allocations p50 ms', 'write.put.p50_ms', 'low'),
    ('write: PUT /allocations p99 ms', 'write.put.p99_ms', 'low'),
    ('write: server CPU ms/req', 'write.cpu.server_cpu_ms_per_request', 'low'),
    ('claims: 204', 'claims.counts.204', None),
    ('claims: expected 204', 'claims.expected_204', None),
    ('claims: 409 capacity', 'claims.counts.409_capacity', None),
    ('claims: 409 concurrent_update', 'claims.counts.409_concurrent', None),
    ('claims: OVERCOMMIT findings', 'claims.overcommit', None),
    ('claims: PUT p50 ms (10 workers)', 'claims.put_204.p50_ms', 'low'),
    ('claims: successful claims/s', 'claims.claims_per_s', 'high'),
    ('nested gate (same_subtree) c=1 p50 ms', 'nested.gate.runs.c1.p50_ms', 'low'),
    ('nested gate c=10 req/s', 'nested.gate.runs.c10.rps', 'high'),
    ('nested isolate c=1 p50 ms', 'nested.isolate.runs.c1.p50_ms', 'low'),
    ('nested isolate c=10 req/s', 'nested.isolate.runs.c10.rps', 'high'),
    ('nested isolate candidates', 'nested.isolate.cold.allocation_requests', None),
    ('nested PUT p50 ms', 'nested.write.put.p50_ms', 'low'),
    ('wrk GET / req/s', 'wrk.version.rps', 'high'),
    ('wrk GET /resource_providers/{u} req/s', 'wrk.provider.rps', 'high'),
    ('wrk GET /resource_providers/{u} server CPU ms/req',
     'wrk.provider.cpu.server_cpu_ms_per_request', 'low'),
    ('other CPU during read phase, s (disturbance)', 'read.cpu.other_cpu_s', None),
    ('clean run', 'ok', None),
]


def fmt(v):
    if v is None:
        return '-'
    if isinstance(v, list):
        return str(len(v))
    if isinstance(v, float):
        return '%.4g' % v if abs(v) < 10 else '%.1f' % v
    return str(v)


def rss_rows(doc):
    """(role, pid, MiB) of the server processes after the run."""
    procs = (doc.get('rss_after') or {}).get('processes') or []
    out = []
    root = min((p['pid'] for p in procs), default=None)
    for p in procs:
        cmd = p.get('cmd', '')
        if cmd.startswith('placeme') or 'wsgi' in cmd:
            role = 'mod_wsgi daemon (Python placement)'
        elif p['pid'] == root:
            role = 'httpd parent'
        else:
            role = 'httpd child'
        out.append((role, p['pid'], round((p['rss_kib'] or 0) / 1024.0, 1)))
    return out


def main():
    ref, mod = load(sys.argv[1]), load(sys.argv[2])
    print('| figure | reference | mod_placement | mod_placement better by |')
    print('|---|---:|---:|---:|')
    for label, path, kind in ROWS:
        a, b = dig(ref, path), dig(mod, path)
        factor = ''
        if kind and isinstance(a, (int, float)) and isinstance(b, (int, float)) \
                and a and b:
            factor = '%.1fx' % ((a / b) if kind == 'low' else (b / a))
        print('| %s | %s | %s | %s |' % (label, fmt(a), fmt(b), factor))
    print()
    print('| server | process | pid | RSS after the run, MiB |')
    print('|---|---|---:|---:|')
    for name, doc in (('reference', ref), ('mod_placement', mod)):
        for role, pid, mib in rss_rows(doc):
            print('| %s | %s | %d | %s |' % (name, role, pid, mib))
    big_ref = max((m for r, _, m in rss_rows(ref) if 'wsgi' in r), default=None)
    big_mod = max((m for r, _, m in rss_rows(mod) if r == 'httpd child'), default=None)
    if big_ref and big_mod:
        print()
        print('largest reference worker %.1f MiB, largest mod_placement child %.1f MiB: '
              'ratio 1/%.1f' % (big_ref, big_mod, big_ref / big_mod))


if __name__ == '__main__':
    main()
