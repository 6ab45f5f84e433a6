#!/usr/bin/python3
"""Issue 35: the PostgreSQL connection cut under a driver call, at every
kind of call the module makes (t/fault/run preloads t/fault/pq_cut.c into
httpd: every Nth libpq call of a child meets a dead connection).

usage: check_cut_calls.py API_URL DB_URL

Claims, reads and releases one after the other, as nova's scheduler and
computes make them. Every answer must be what the request would get with
a sound database (2xx, 409, a 404 for what a cut claim did not make) or a
JSON 500 with its request id; the database then holds every claim
answered 204 exactly, nothing of a claim answered 409 or of a release
answered 204, all or nothing of a claim answered 500; a read after the
run succeeds. A child that crashed fails t/run-api's clean-log check.
Prints "ok ..." / "not ok ..." lines.
"""

import os
import random
import subprocess
import sys
import uuid

from db_connect import connect_any
from placement_client import Api, check

OPERATIONS = 240
SOUND = {200, 201, 204, 404, 409}


def until_2xx(api, method, path, body=None):
    """A setup call, sent again while a cut makes it fail (a 409 after a
    500: the first one was applied, its COMMIT's answer lost)"""
    failed = False
    for _ in range(100):
        status, answer = api.call(method, path, body)
        if 200 <= status < 300 or (status == 409 and failed):
            return answer
        failed = status == 500
    raise SystemExit('not ok setup %s %s: %s %s' % (method, path, status,
                                                     answer))


def main():
    api_url, db_url = sys.argv[1:3]
    # the standard data first, as a deployment tool does: a cut every few
    # calls would keep a first start's 400 inserts from ever ending
    manage = os.environ.get('MANAGE', os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build',
        'mod-placement-manage'))
    subprocess.run([manage, '--db-url', db_url, 'db', 'sync_standard_data'],
                   check=True, stdout=subprocess.DEVNULL)
    api = Api(api_url)
    rnd = random.Random(35)
    rps = []
    for i in range(3):
        rp = str(uuid.uuid4())
        until_2xx(api, 'POST', '/resource_providers',
                  {'uuid': rp, 'name': 'cut-%d-%s' % (i, rp[:8])})
        gen = until_2xx(api, 'GET', '/resource_providers/' + rp)['generation']
        until_2xx(api, 'PUT', '/resource_providers/%s/inventories' % rp,
                  {'resource_provider_generation': gen,
                   'inventories': {'VCPU': {'total': 64},
                                   'MEMORY_MB': {'total': 65536}}})
        rps.append(rp)

    statuses, odd, bare_500 = {}, [], []
    claims, outcome, held = {}, {}, []
    for n in range(OPERATIONS):
        roll = rnd.random()
        if held and roll < 0.3:
            consumer = held.pop(rnd.randrange(len(held)))
            status, body = api.call('DELETE', '/allocations/' + consumer)
            if status == 204:
                outcome[consumer] = 'released'
            elif status == 500:
                outcome[consumer] = 'unknown-release'
        elif roll < 0.7:
            consumer = str(uuid.uuid4())
            rp = rnd.choice(rps)
            want = {'VCPU': rnd.randint(1, 4),
                    'MEMORY_MB': 256 * rnd.randint(1, 8)}
            claims[consumer] = (rp, want)
            status, body = api.call(
                'PUT', '/allocations/' + consumer,
                {'allocations': {rp: {'resources': want}},
                 'project_id': 'p%d' % rnd.randint(0, 40),
                 'user_id': 'u%d' % rnd.randint(0, 40),
                 'consumer_generation': None, 'consumer_type': 'INSTANCE'})
            if status == 204:
                outcome[consumer] = 'held'
                held.append(consumer)
            elif status == 409:
                outcome[consumer] = 'refused'
            else:
                outcome[consumer] = 'unknown'
        else:
            path = rnd.choice([
                '/resource_providers',
                '/resource_providers/%s/usages' % rnd.choice(rps),
                '/allocation_candidates?resources=VCPU:1,MEMORY_MB:256',
                '/usages?project_id=p%d' % rnd.randint(0, 40)])
            status, body = api.call('GET', path)
        statuses[status] = statuses.get(status, 0) + 1
        if status not in SOUND and status != 500:
            odd.append((status, body))
        if status == 500:
            rid = ((body or {}).get('errors') or [{}])[0].get('request_id')
            if not rid:
                bare_500.append(body)

    print('# answers: %s' % ', '.join('%s x%d' % kv
                                      for kv in sorted(statuses.items())))
    check('every answer sound (2xx, 404, 409) or a JSON 500',
          not odd, odd[:3])
    check('every 500 carries its request id', not bare_500, bare_500[:3])
    check('the cuts reached requests (some 500s)', statuses.get(500, 0) > 0,
          statuses)

    conn, mark = connect_any(db_url)
    cur = conn.cursor()
    # allocations.consumer_id is the consumer's uuid (upstream's schema)
    cur.execute('SELECT a.consumer_id, rp.uuid, rc.name, a.used '
                'FROM allocations a '
                'JOIN resource_providers rp ON rp.id = a.resource_provider_id '
                'JOIN resource_classes rc ON rc.id = a.resource_class_id')
    have = {}
    for consumer, rp, rc, used in cur.fetchall():
        have.setdefault(consumer, {})[(rp, rc)] = used
    conn.close()
    wrong = []
    for consumer, how in outcome.items():
        rp, want = claims[consumer]
        exact = {(rp, rc): v for rc, v in want.items()}
        got = have.get(consumer, {})
        if how == 'held' and got != exact:
            wrong.append((how, consumer, got))
        elif how in ('refused', 'released') and got:
            wrong.append((how, consumer, got))
        elif how.startswith('unknown') and got not in ({}, exact):
            wrong.append((how, consumer, got))
    check('the database holds each claim as its answer says (all or '
          'nothing after a 500)', not wrong, wrong[:3])
    # the cuts go on: a read meets one now and then (one libpq call in N),
    # but one gets through, nothing is wedged
    status = None
    for _ in range(50):
        status, _ = api.call('GET', '/resource_providers')
        if status == 200:
            break
    check('the server still answers', status == 200, status)


if __name__ == '__main__':
    main()
