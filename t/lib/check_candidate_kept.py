#!/usr/bin/python3
"""Candidates answers kept while the database shows no new commit
(PlacementCoalesceCandidates, On by default, issue 37): on PostgreSQL a
request finds the answer an identical one computed when the database's
snapshot was the one it reads now; every commit, through the API, in
SQL behind the module's back, or of something the answer does not
show, makes the next request compute. The other databases keep nothing.

usage: check_candidate_kept.py API_URL DB_URL ERROR_LOG BACKEND
The layout: a root with 12 children of one CUSTOM_KEPT each. Asked: 4
isolated groups of one unit (12 x 11 x 10 x 9 candidates) with limit=400,
an answer of more than one 64 KB piece, sent chunked; and limit=2, a
short one. Needs LogLevel placement:debug, whose line names each request
answered with a kept answer by its request id. Prints "ok ..." /
"not ok ..." lines.
"""

import json
import sys
import uuid

from db_connect import connect_any
from placement_client import Api, check

BIG = ('/allocation_candidates?resources1=CUSTOM_KEPT:1'
       '&resources2=CUSTOM_KEPT:1&resources3=CUSTOM_KEPT:1'
       '&resources4=CUSTOM_KEPT:1&group_policy=isolate&limit=400')
SMALL = '/allocation_candidates?resources=CUSTOM_KEPT:1&limit=2'
KEPT = 'kept, the database unchanged'


class Asker:
    """requests on one connection, each remembered with its request id"""

    def __init__(self, url, log):
        self.api = Api(url)
        self.log = log

    def get(self, path):
        resp = self.api.send('GET', path, None)
        body = resp.read()
        return {'status': resp.status, 'body': body,
                'id': resp.getheader('x-openstack-request-id'),
                'chunked': resp.getheader('transfer-encoding') == 'chunked'}

    def kept(self, answers):
        """how many of answers were kept ones (the debug log)"""
        with open(self.log) as f:
            ids = {line.split(' req-')[1].split()[0]
                   for line in f if KEPT in line and ' req-' in line}
        return sum(1 for a in answers if a['id'][4:] in ids)


def used_children(answer):
    """the providers of the answer's allocation requests"""
    body = json.loads(answer['body'])
    return {rp for ar in body['allocation_requests']
            for rp in ar['allocations']}


def main():
    url, db_url, log, backend = sys.argv[1:5]
    keeps = backend == 'pgsql'
    api = Api(url)
    api.call('PUT', '/resource_classes/CUSTOM_KEPT')
    root = str(uuid.uuid4())
    api.call('POST', '/resource_providers', {'name': 'kept-root',
                                             'uuid': root})
    children = []
    for i in range(12):
        c = str(uuid.uuid4())
        api.call('POST', '/resource_providers',
                 {'name': 'kept-%d' % i, 'uuid': c,
                  'parent_provider_uuid': root})
        api.call('PUT', '/resource_providers/%s/inventories' % c,
                 {'resource_provider_generation': 0,
                  'inventories': {'CUSTOM_KEPT': {'total': 1}}})
        children.append(c)

    ask = Asker(url, log)
    first = ask.get(BIG)
    check('the large answer: 400 candidates, sent chunked',
          first['status'] == 200 and first['chunked'] and
          len(json.loads(first['body'])['allocation_requests']) == 400,
          (first['status'], first['chunked'], len(first['body'])))
    again = [ask.get(BIG) for _ in range(6)]
    check('6 more: each the same bytes',
          all(a['status'] == 200 and a['body'] == first['body']
              for a in again))
    # two children: each computes the answer once at most
    n = ask.kept(again)
    check('6 more: %s kept' % ('at least 4' if keeps else 'none'),
          n >= 4 if keeps else n == 0, n)

    # a write through the API: child 0's unit allocated
    st, _ = api.call('PUT', '/allocations/%s' % uuid.uuid4(),
                     {'allocations': {children[0]: {'resources':
                                                    {'CUSTOM_KEPT': 1}}},
                      'project_id': str(uuid.uuid4()),
                      'user_id': str(uuid.uuid4()),
                      'consumer_generation': None,
                      'consumer_type': 'INSTANCE'})
    after = ask.get(BIG)
    check('after an allocation: computed, without its provider',
          st == 204 and after['status'] == 200 and
          ask.kept([after]) == 0 and children[0] in used_children(first) and
          children[0] not in used_children(after), st)

    # a write in SQL, behind the module's back, as another server on the
    # database makes it (the provider's generation moves with its
    # inventory): child 1 reserved
    conn, mark = connect_any(db_url)
    cur = conn.cursor()
    cur.execute('UPDATE inventories SET reserved = 1 WHERE '
                'resource_provider_id = (SELECT id FROM resource_providers '
                'WHERE uuid = %s)' % mark, (children[1],))
    cur.execute('UPDATE resource_providers SET generation = generation + 1 '
                'WHERE uuid = %s' % mark, (children[1],))
    conn.commit()
    conn.close()
    behind = ask.get(BIG)
    check('after a write in SQL: computed, without its provider',
          behind['status'] == 200 and ask.kept([behind]) == 0 and
          children[1] not in used_children(behind),
          (behind['status'], ask.kept([behind])))

    # a commit the answer does not show: computed all the same
    before = ask.get(BIG)
    api.call('PUT', '/resource_classes/CUSTOM_KEPT_ELSEWHERE')
    other = ask.get(BIG)
    check('after a commit it does not show: computed, the same bytes',
          ask.kept([other]) == 0 and other['body'] == before['body'])

    small = [ask.get(SMALL) for _ in range(5)]
    n = ask.kept(small)
    check('a short answer: the same bytes 5 times, %s kept' %
          ('at least 3' if keeps else 'none'),
          all(not a['chunked'] and a['body'] == small[0]['body']
              for a in small) and (n >= 3 if keeps else n == 0), n)


if __name__ == '__main__':
    main()
