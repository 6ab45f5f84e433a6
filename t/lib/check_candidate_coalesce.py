#!/usr/bin/python3
"""Identical candidates requests arriving together share one computation
(PlacementCoalesceCandidates On, issue 37), and no answer is older than
its request.

usage: check_candidate_coalesce.py API_URL ERROR_LOG
Makes 200 providers of 4 VCPU. Then:
  - 12 clients ask the same request at once, 25 times each, at two
    microversions: every answer is the one a lone request gets at its
    microversion, and the debug log shows answers shared;
  - a writer reserves all of one provider's VCPU and frees it again, 60
    times, and after each acknowledged write asks the request itself,
    while 10 clients keep asking it without pause: each of the writer's
    answers must show its write (a request that joined a computation
    already under way could get an answer from before it);
  - with PlacementRandomizeCandidates Off (the default), nothing else.
Prints "ok ..." / "not ok ..." lines.
"""

import json
import sys
import threading
import uuid

from placement_client import Api, check

QUERY = '/allocation_candidates?resources=VCPU:1'
SHARED = 'one answer for'


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


def main():
    url, log = sys.argv[1], sys.argv[2]
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
    with open(log) as f:
        shared = sum(1 for line in f if SHARED in line)
    check('answers were shared (debug log)', shared > 0, shared)

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
    with open(log) as f:
        shared_after = sum(1 for line in f if SHARED in line)
    check('answers were shared while the writer wrote',
          shared_after > shared, (shared, shared_after))


if __name__ == '__main__':
    main()
