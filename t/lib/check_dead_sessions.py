#!/usr/bin/python3
"""Issue 35: pooled database sessions that died while idle (the server
restarted, a proxy or firewall cut them, an operator ran
pg_terminate_backend or KILL) cost the clients nothing: the next requests
find each such session dead before writing anything, reconnect and run
transparently, and no child crashes.

usage: check_dead_sessions.py API_URL BACKEND DB_URL

Rounds of: requests at once, to make each child hold several pooled
sessions; every session of the database ended from outside (PostgreSQL
pg_terminate_backend, MariaDB KILL); then reads and writes one after the
other (a provider's inventory, claims and their release) and at once:
every answer must be a 2xx. SQLite has no sessions to end: nothing is
printed for it. Prints "ok ..." / "not ok ..." lines.
"""

import concurrent.futures
import sys
import uuid

from db_connect import end_sessions
from placement_client import Api, check

ROUNDS = 3
SEQUENTIAL = 40
AT_ONCE = 12


def make_provider(api):
    rp = str(uuid.uuid4())
    status, body = api.call('POST', '/resource_providers',
                            {'uuid': rp, 'name': 'dead-sessions-' + rp})
    assert status == 200, (status, body)
    status, body = api.call('PUT', '/resource_providers/%s/inventories' % rp,
                            {'resource_provider_generation': 0,
                             'inventories': {'VCPU': {'total': 100000},
                                             'MEMORY_MB': {'total': 10 ** 7}}})
    assert status == 200, (status, body)
    return rp


def claim_and_release(api, rp):
    """A claim as nova makes it, read back, released: the statuses"""
    consumer = str(uuid.uuid4())
    body = {'allocations': {rp: {'resources': {'VCPU': 1,
                                               'MEMORY_MB': 512}}},
            'project_id': str(uuid.uuid4()), 'user_id': str(uuid.uuid4()),
            'consumer_generation': None, 'consumer_type': 'INSTANCE'}
    statuses = [api.call('PUT', '/allocations/' + consumer, body)[0],
                api.call('GET', '/allocations/' + consumer)[0],
                api.call('DELETE', '/allocations/' + consumer)[0]]
    return statuses


def one_request(url, rp, i):
    """A read or a claim on a connection of its own: the statuses"""
    api = Api(url)
    try:
        return request_kind(api, rp, i)
    finally:
        api.conn.close()


def request_kind(api, rp, i):
    kinds = [lambda: [api.call('GET', '/resource_providers')[0]],
             lambda: [api.call('GET', '/resource_providers/%s/usages'
                               % rp)[0]],
             lambda: claim_and_release(api, rp),
             lambda: [api.call('GET', '/allocation_candidates?resources='
                               'VCPU:1,MEMORY_MB:64')[0]]]
    return kinds[i % len(kinds)]()


def fill_pools(url, rp):
    """Requests at once: each child opens several sessions"""
    with concurrent.futures.ThreadPoolExecutor(AT_ONCE) as pool:
        list(pool.map(lambda i: one_request(url, rp, i), range(AT_ONCE * 2)))


def main():
    api_url, backend, db_url = sys.argv[1:4]
    if backend not in ('pgsql', 'mysql'):
        return
    api = Api(api_url)
    rp = make_provider(api)
    for rnd in range(1, ROUNDS + 1):
        fill_pools(api_url, rp)
        ended = end_sessions(db_url)
        check('round %d: the sessions of the database were ended (%d)'
              % (rnd, ended), ended >= 2, ended)
        if rnd % 2:
            statuses = []
            for i in range(SEQUENTIAL):
                statuses += one_request(api_url, rp, i)
            how = 'one after the other'
        else:
            with concurrent.futures.ThreadPoolExecutor(AT_ONCE) as pool:
                statuses = sum(pool.map(lambda i: one_request(api_url, rp, i),
                                        range(SEQUENTIAL)), [])
            how = 'at once'
        bad = [s for s in statuses if not 200 <= s < 300]
        check('round %d: %d requests %s after it, every one a 2xx'
              % (rnd, len(statuses), how), not bad,
              '%d not 2xx: %s' % (len(bad), sorted(set(bad))))
    status, body = api.call('GET', '/resource_providers/%s/usages' % rp)
    check('nothing is left allocated after the releases',
          status == 200 and body['usages'] == {'VCPU': 0, 'MEMORY_MB': 0},
          (status, body))


if __name__ == '__main__':
    main()
