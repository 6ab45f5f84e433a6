#!/usr/bin/python3
"""A write that waits on a lock held from outside ends at the server's
statement timeout (PlacementStatementTimeout, issue 13), not later.

usage: check_statement_timeout.py API_URL BACKEND DB_URL ERROR_LOG SECONDS

A provider with inventory is made through the API; a connection of our
own then holds its row (SELECT ... FOR UPDATE in an open transaction),
and a PUT /allocations, whose generation update must wait for that row,
is sent. It must answer after about SECONDS (not before, and well before
MariaDB's 50 s lock wait timeout or PostgreSQL's never): a JSON 500 with
its request id, that id in an error line naming the timeout, nothing
written. Reads meanwhile answer at once. Once the lock is released the
same PUT succeeds. PostgreSQL and MariaDB only (SQLite has no server-side
statement timeout): on SQLite the script prints nothing.
Prints "ok ..." / "not ok ..." lines.
"""
import sys
import threading
import time
import uuid

from db_connect import connect
from placement_client import Api, check

TIMEOUT_TEXT = ('canceling statement due to statement timeout',
                'max_statement_time exceeded')


def main():
    url, backend, db_url, log, seconds = sys.argv[1:6]
    seconds = float(seconds)
    if backend not in ('pgsql', 'mysql'):
        return
    api = Api(url)
    st, rp = api.call('POST', '/resource_providers',
                      {'name': 'timeout-%s' % uuid.uuid4().hex[:8]})
    check('statement timeout: provider made', st == 200, (st, rp))
    st, inv = api.call('PUT', '/resource_providers/%s/inventories'
                       % rp['uuid'],
                       {'resource_provider_generation': rp['generation'],
                        'inventories': {'VCPU': {'total': 8}}})
    check('statement timeout: inventory set', st == 200, (st, inv))
    gen = inv['resource_provider_generation']
    consumer = str(uuid.uuid4())
    claim = {'allocations': {rp['uuid']: {'resources': {'VCPU': 2}}},
             'project_id': 'p', 'user_id': 'u', 'consumer_generation': None,
             'consumer_type': 'INSTANCE'}

    holder = connect(db_url)
    cur = holder.cursor()
    cur.execute('SELECT generation FROM resource_providers WHERE uuid = %s '
                'FOR UPDATE', (rp['uuid'],))
    answer = {}

    def put():
        t0 = time.time()
        answer['st'], answer['body'] = Api(url).call(
            'PUT', '/allocations/' + consumer, claim)
        answer['took'] = time.time() - t0

    writer = threading.Thread(target=put)
    writer.start()
    time.sleep(0.3)
    t0 = time.time()
    st, _ = api.call('GET', '/resource_providers/%s' % rp['uuid'])
    check('statement timeout: a read meanwhile answers at once',
          st == 200 and time.time() - t0 < 1, (st, time.time() - t0))
    writer.join(seconds * 10 + 30)
    holder.rollback()
    holder.close()
    st, body, took = answer.get('st'), answer.get('body'), answer.get('took')
    check('statement timeout: the waiting write answers after about %g s'
          % seconds, took is not None and seconds - 0.2 <= took
          < seconds * 3 + 1, took)
    errors = (body or {}).get('errors') or [{}]
    rid = errors[0].get('request_id', '')
    check('statement timeout: a JSON 500 with its request id',
          st == 500 and rid.startswith('req-'), (st, body))
    time.sleep(0.3)
    with open(log, errors='replace') as f:
        lines = [ln for ln in f if rid and rid in ln and ':error]' in ln]
    check('statement timeout: an error line with the request id names the '
          'timeout', any(t in ln for ln in lines for t in TIMEOUT_TEXT),
          lines)
    st, allocs = api.call('GET', '/allocations/' + consumer)
    st2, now = api.call('GET', '/resource_providers/%s' % rp['uuid'])
    check('statement timeout: nothing was written',
          st == 200 and allocs['allocations'] == {}
          and now['generation'] == gen, (allocs, now))
    st, body = api.call('PUT', '/allocations/' + consumer, claim)
    check('statement timeout: the same write succeeds once the lock is '
          'released', st == 204, (st, body))
    st, allocs = api.call('GET', '/allocations/' + consumer)
    check('statement timeout: and is stored',
          allocs['allocations'].get(rp['uuid'], {}).get('resources')
          == {'VCPU': 2}, allocs)


if __name__ == '__main__':
    main()
