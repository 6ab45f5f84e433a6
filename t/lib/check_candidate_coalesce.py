#!/usr/bin/python3
"""Identical candidates requests arriving together share one computation
(PlacementCoalesceCandidates, issue 37), and no answer is
older than its request.

usage: check_candidate_coalesce.py API_URL ERROR_LOG METRICS_URL on|off BACKEND
on/off: the server's PlacementCoalesceCandidates; BACKEND: sqlite, pgsql
or mysql (PostgreSQL's answers are also kept for later identical
requests while the database shows no new commit).
Makes 200 providers of 4 VCPU. Then:
  - 12 clients ask the same request at once, 25 times each, at two
    microversions: every answer is the one a lone request gets at its
    microversion; with on, the debug log shows answers shared, and
    /metrics counts each answer once, shared or not (with off, none is
    shared);
  - a writer reserves all of one provider's VCPU and frees it again, 60
    times, and after each acknowledged write asks the request itself,
    while 10 clients keep asking it without pause: each of the writer's
    answers must show its write (a request that joined a computation
    already under way, or took an answer kept from before the write,
    could get an answer from before it);
  - with off, or PlacementRandomizeCandidates On, nothing is shared.
Prints "ok ..." / "not ok ..." lines.
"""

import json
import sys
import threading
import uuid

from placement_client import Api, check, counters

QUERY = '/allocation_candidates?resources=VCPU:1'
SHARED = 'one answer for'          # a leader's line: N followers got it
OTHERS = 'the answer of an identical request'  # each request not computing
KEPT = 'kept, the database unchanged'  # ... answered with a kept answer
REQUESTS = 'placement_allocation_candidates_requests_total'
RETURNED = 'placement_allocation_candidates_returned_total'
SHARED_TOTAL = 'placement_allocation_candidates_shared_total'


def get(api, mv='1.39'):
    """(status, body bytes) of the request at mv"""
    resp = api.send('GET', QUERY, None, mv)
    return resp.status, resp.read()


def hammer(url, mv, rounds, out, stop=None):
    c = Api(url)
    n = 0
    while (stop is None and n < rounds) or (stop is not None
                                            and not stop.is_set()):
        out.append((mv,) + get(c, mv))
        n += 1


def set_reserved(api, rp, reserved):
    st, inv = api.call('GET', '/resource_providers/%s/inventories' % rp)
    body = {'resource_provider_generation':
            inv['resource_provider_generation'],
            'inventories': {'VCPU': {'total': 4, 'reserved': reserved}}}
    st, _ = api.call('PUT', '/resource_providers/%s/inventories' % rp, body)
    return st


def log_counts(log):
    """{marker: lines of the debug log with it}"""
    with open(log) as f:
        text = f.read().splitlines()
    return {m: sum(1 for line in text if m in line)
            for m in (SHARED, OTHERS, KEPT)}


def main():
    url, log, metrics, mode, backend = sys.argv[1:6]
    on = mode == 'on'
    api = Api(url)
    rps = []
    for i in range(200):
        rp = str(uuid.uuid4())
        api.call('POST', '/resource_providers',
                 {'name': 'co-%d' % i, 'uuid': rp})
        set_reserved(api, rp, 0)
        rps.append(rp)
    lone = {mv: get(Api(url), mv) for mv in ('1.10', '1.39')}
    check('a lone request answers 200 candidates',
          lone['1.39'][0] == 200 and
          len(json.loads(lone['1.39'][1])['allocation_requests']) == 200,
          lone['1.39'][0])

    before = counters(metrics)
    answers = []
    threads = [threading.Thread(target=hammer,
                                args=(url, '1.39' if i % 3 else '1.10', 25,
                                      answers)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bad = [(mv, st) for mv, st, body in answers if (st, body) != lone[mv]]
    check('300 answers together, each the lone answer of its microversion',
          len(answers) == 300 and not bad, bad[:3])
    after = counters(metrics)
    logged = log_counts(log)
    if on:
        check('answers were shared (debug log)', logged[OTHERS] > 0, logged)
    else:
        check('no answer was shared (debug log)', logged[OTHERS] == 0, logged)
    moved = {k: after[k] - before[k] for k in (REQUESTS, RETURNED,
                                                SHARED_TOTAL)}
    check('the metrics count each of the 300 answers once',
          moved[REQUESTS] == 300 and moved[RETURNED] == 300 * 200, moved)
    check('the metrics count the shared answers the log names',
          moved[SHARED_TOTAL] == logged[OTHERS] and
          (moved[SHARED_TOTAL] > 0) == on, (moved, logged))

    stop = threading.Event()
    readers = [threading.Thread(target=hammer,
                                args=(url, '1.39', 0, [], stop))
               for _ in range(10)]
    for t in readers:
        t.start()
    writer = Api(url)
    stale = []
    for i in range(60):
        reserved = 4 if i % 2 == 0 else 0
        if set_reserved(api, rps[0], reserved) != 200:
            stale.append((i, 'write failed'))
            continue
        st, body = get(writer)
        listed = rps[0] in json.loads(body)['provider_summaries']
        if st != 200 or listed != (reserved == 0):
            stale.append((i, st, listed))
    stop.set()
    for t in readers:
        t.join()
    check('60 writes, each seen by the request sent after it', not stale,
          stale[:3])
    logged_after = log_counts(log)
    if on:
        check('answers were shared while the writer wrote',
              logged_after[OTHERS] > logged[OTHERS], (logged, logged_after))
    # PostgreSQL names its state: an answer is kept while no commit is
    # made visible; the other databases keep none
    kept = logged_after[KEPT] > 0
    check('answers kept while the database did not change: %s' %
          ('some' if on and backend == 'pgsql' else 'none'),
          kept == (on and backend == 'pgsql'), logged_after)


if __name__ == '__main__':
    main()
