#!/usr/bin/python3
"""Two requests race to create the same consumer (PUT /allocations/{new}
with consumer_generation null, 1.28+), ROUNDS times: one wins (204), the
other gets a 409 placement.concurrent_update (as upstream, where the
loser of the consumer INSERT goes on from generation 0 and loses the
consumer generation compare-and-swap; or, arriving later, sees the
consumer and "expected 1 but got None"); the consumer then holds the
winner's allocations only.

usage: race_new_consumer.py API_URL PROVIDER_UUID [ROUNDS]
Prints "ok ..." / "not ok ..." lines.
"""

import sys
import threading
import uuid

from placement_client import Api, check


def main():
    url, prov = sys.argv[1:3]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    bad, results = [], []
    for _ in range(rounds):
        consumer = str(uuid.uuid4())
        apis = [Api(url), Api(url)]
        out = [None, None]
        start = threading.Barrier(2)

        def put(i):
            body = {'allocations': {prov: {'resources': {'DISK_GB': i + 1}}},
                    'project_id': 'proj-race', 'user_id': 'user-race',
                    'consumer_generation': None, 'consumer_type': 'INSTANCE'}
            start.wait()
            out[i] = apis[i].call('PUT', '/allocations/' + consumer, body)

        threads = [threading.Thread(target=put, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses = sorted(o[0] for o in out)
        results.append(tuple(statuses))
        if statuses != [204, 409]:
            bad.append((consumer, statuses))
            continue
        loser = out[0] if out[0][0] == 409 else out[1]
        winner = 0 if out[0][0] == 204 else 1
        if loser[1]['errors'][0].get('code') != 'placement.concurrent_update':
            bad.append((consumer, loser[1]))
            continue
        st, body = apis[0].call('GET', '/allocations/' + consumer)
        got = body['allocations'].get(prov, {}).get('resources')
        if st != 200 or got != {'DISK_GB': winner + 1} \
                or body.get('consumer_generation') != 1:
            bad.append((consumer, body))
        apis[0].call('DELETE', '/allocations/' + consumer)
    check('racing creators of one consumer: one 204, one 409 '
          'concurrent_update, the winner\'s allocations (%d rounds)'
          % rounds, not bad, bad[:3])


if __name__ == '__main__':
    main()
