#!/usr/bin/python3
"""Time PUT /allocations alone, as the bench's write phases do it, with the
server's and the database's CPU per PUT.

    bench/put-scale.py URL [--kind flat|nested] [--n 100] [--repeat 3]
        [--rss-match 'RUNDIR/httpd[.]conf'] [--db-match 'postgres: .*DB']

One GET /allocation_candidates (the bench's flat query, or its nested
isolate query: 4 providers per allocation) with limit=N gives N candidates;
each is then claimed by a new consumer (consumer_body() of the bench), one
after the other. Only the PUTs are timed, and the CPU of the httpd children
(--rss-match) and of the database processes (--db-match) is read from
/proc around the PUTs alone. With --repeat R the N PUTs run R times (fresh
candidates each time) and the figures are of all of them. Prints a summary
and a last line of JSON. The queries and helpers are imported from
/work/shared/bench/placement_bench.py.
"""
import argparse
import json
import os
import sys
import uuid

sys.path.insert(0, '/work/shared/bench')
import placement_bench as pb  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument('url')
    p.add_argument('--kind', choices=('flat', 'nested'), default='flat')
    p.add_argument('--n', type=int, default=100)
    p.add_argument('--repeat', type=int, default=1)
    p.add_argument('--rss-match', default=None)
    p.add_argument('--db-match', default=None)
    p.add_argument('--label', default=None)
    a = p.parse_args()

    client = pb.Client(a.url, 'admin', 120.0)
    version = client.request('GET', '/').json()['versions'][0]
    max_mv = pb.mv_tuple(version['max_version'])
    query = pb.MAIN_QUERY if a.kind == 'flat' else pb.NESTED_QUERY_ISOLATE
    meter = pb.CpuMeter(a.rss_match, a.db_match)
    lat, spans, cpu = [], set(), []
    for _ in range(a.repeat):
        r = client.request('GET', '/allocation_candidates?%s&limit=%d'
                           % (query, a.n))
        reqs = r.json()['allocation_requests']
        before = meter.snap()
        for req in reqs:
            body = pb.consumer_body(req, max_mv)
            spans.add(len(body['allocations']))
            r = client.request('PUT', '/allocations/%s' % uuid.uuid4(), body,
                               ok=(204,))
            lat.append(r.elapsed)
        cpu.append(pb.CpuMeter.diff(before, meter.snap(), len(reqs)))
    puts = len(lat)
    res = {'label': a.label, 'kind': a.kind, 'url': a.url, 'puts': puts,
           'providers_per_allocation': sorted(spans),
           'put': pb.summarize(lat), 'loadavg': os.getloadavg()}
    for key in ('server_cpu_s', 'db_cpu_s', 'other_cpu_s'):
        vals = [c[key] for c in cpu if key in c]
        if vals:
            res[key] = round(sum(vals), 2)
            res[key.replace('_s', '_ms_per_put')] = round(
                1000.0 * sum(vals) / puts, 2) if puts else None
    print('%s %s: %d PUTs (%s providers each): %s' % (
        a.label or a.url, a.kind, puts, sorted(spans), pb.fmt_summary(res['put'])))
    print('  server CPU %s ms/PUT, DB CPU %s ms/PUT, other CPU %s s, '
          'load average %.2f %.2f %.2f' % (
              res.get('server_cpu_ms_per_put'), res.get('db_cpu_ms_per_put'),
              res.get('other_cpu_s'), *res['loadavg']))
    print(json.dumps(res, sort_keys=True))


if __name__ == '__main__':
    main()
