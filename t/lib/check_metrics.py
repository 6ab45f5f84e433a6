#!/usr/bin/python3
"""Read the metrics of a running mod_placement with Prometheus' own text
parser (python3-prometheus-client) and check what an operator's scraper
relies on: every line parses, the families have the announced types,
histograms are cumulative, and counters never go down between two
scrapes.

usage: check_metrics.py URL     (e.g. http://127.0.0.1:PORT/metrics)
Prints "ok ..." / "not ok ..." lines.
"""

import sys
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
    return 0


if __name__ == '__main__':
    sys.exit(main())
