#!/usr/bin/python3
"""Read the metrics of a running mod_placement with Prometheus' own text
parser (python3-prometheus-client) and check what an operator's scraper
relies on: every line parses, the families have the announced types,
histograms are cumulative, and counters never go down between two
scrapes.

usage: check_metrics.py URL [API_URL PID_LOG]
URL is the metrics handler (http://127.0.0.1:PORT/metrics). With API_URL
and PID_LOG (an access log whose lines end with the serving process id,
%P), it also makes requests on fresh connections until two children have
served some, and checks the counters saw every one of them.
Prints "ok ..." / "not ok ..." lines.
"""

import sys
import time
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def scrape(url):
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.read().decode('utf-8')


def families(url):
    return {f.name: f for f in text_string_to_metric_families(scrape(url))}


def check(name, cond, detail=''):
    print('%s %s%s' % ('ok' if cond else 'not ok', name,
                       '' if cond else ': ' + detail))
    return cond


def listings_counted(url):
    fam = families(url)['placement_requests']
    return sum(s.value for s in fam.samples
               if s.name == 'placement_requests_total'
               and s.labels['route'] == 'GET /resource_providers')


def pids_in(log):
    with open(log) as f:
        return {ln.split()[-1] for ln in f if ln.strip()}


def across_children(url, api_url, log):
    """Requests on fresh connections until two children served some."""
    before = listings_counted(url)
    made = 0
    while made < 400 and (made < 20 or len(pids_in(log)) < 2):
        req = urllib.request.Request(
            api_url + '/resource_providers',
            headers={'x-auth-token': 'admin', 'connection': 'close'})
        urllib.request.urlopen(req, timeout=10).read()
        made += 1
    time.sleep(0.2)
    pids = pids_in(log)
    check('requests served by two children', len(pids) >= 2, pids)
    after = listings_counted(url)
    check('every request of every child counted', after - before == made,
          '%d made, %d counted' % (made, after - before))


def main():
    url = sys.argv[1]
    try:
        first = families(url)
    except Exception as e:  # the parser's word is the verdict
        check('metrics parse with prometheus_client', False, repr(e))
        return 1
    check('metrics parse with prometheus_client', True)
    want = {
        'placement_requests': 'counter',
        'placement_request_duration_seconds': 'histogram',
        'placement_allocation_conflict_retries': 'counter',
        'placement_allocation_candidates_returned': 'counter',
        'placement_db_connections_in_use': 'gauge',
        'placement_token_cache_hits': 'counter',
    }
    for name, typ in sorted(want.items()):
        fam = first.get(name)
        check('family %s is a %s' % (name, typ),
              fam is not None and fam.type == typ,
              'got %r' % (fam.type if fam else None))
    hist = first['placement_request_duration_seconds']
    by_route = {}
    for s in hist.samples:
        if s.name.endswith('_bucket'):
            by_route.setdefault(s.labels['route'], []).append(s.value)
    cumulative = all(v == sorted(v) for v in by_route.values())
    check('histogram buckets are cumulative', cumulative and by_route,
          str(by_route)[:200])
    second = families(url)
    went_down = []
    for name, fam in first.items():
        if fam.type != 'counter':
            continue
        after = {(s.name, tuple(sorted(s.labels.items()))): s.value
                 for s in second[name].samples}
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            if after.get(key, 0) < s.value:
                went_down.append(key)
    check('counters do not go down between scrapes', not went_down,
          str(went_down[:3]))
    if len(sys.argv) > 3:
        across_children(url, sys.argv[2], sys.argv[3])
    return 0


if __name__ == '__main__':
    sys.exit(main())
