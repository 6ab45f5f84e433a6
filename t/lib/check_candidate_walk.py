#!/usr/bin/python3
"""The walk of a bounded candidates request (issue 37): in a cloud whose
provider ids pass 5,000 and where the bound is small beside them, the
roots are walked in id order, a round at a time, until the bound is met
or no root is left (mod_placement/candidates/store_ac_roots.c). Its
answers must be the ones the set-based query gives, where most trees
read give nothing: full hosts, which only the engine can tell, and
disabled ones, which the walk itself skips.

usage: check_candidate_walk.py API_URL DB_URL ERROR_LOG
The layout: a provider row of id 6000 written to the database first, as
a cloud that made that many would have it; then 60 hosts in creation
order, each a root of CUSTOM_WALK_A (4) and CUSTOM_WALK_B (8) with a
child of CUSTOM_WALK_PKT: every 12th from the first has room (1 A and 2 B
used), 9 of every 12 are full (4 A used), 2 of every 12 are disabled
(COMPUTE_STATUS_DISABLED on the root). Asked: 2 A and 3 B on a root not
disabled, as nova asks, with limits 1, 3, 5 and 6 (the walk) and 1000
(the set), then limit=3 again (a shape the child has seen: one round).
Needs LogLevel placement:debug, whose line per request says how many
rounds read the trees. Prints "ok ..." / "not ok ..." lines.
"""

import json
import sys
import time
import urllib.request
import uuid

from db_connect import connect_any
from placement_client import HEADERS, Api, check

HOSTS, EVERY = 60, 12
FREE = [i for i in range(HOSTS) if i % EVERY == 0]
QUERY = ('resources=CUSTOM_WALK_A:2,CUSTOM_WALK_B:3'
         '&root_required=!COMPUTE_STATUS_DISABLED')


def placeholder(db_url):
    """the provider of id 6000, written as an older cloud left it"""
    conn, mark = connect_any(db_url)
    cur = conn.cursor()
    cur.execute('INSERT INTO resource_providers (id, uuid, name, generation, '
                'root_provider_id, parent_provider_id) VALUES '
                '(6000, %s, %s, 0, 6000, NULL)' % (mark, mark),
                (str(uuid.uuid4()), 'walk-placeholder'))
    conn.commit()
    conn.close()


def provider(api, name, parent=None, inventories=None):
    u = str(uuid.uuid4())
    body = {'name': name, 'uuid': u}
    if parent:
        body['parent_provider_uuid'] = parent
    st, _ = api.call('POST', '/resource_providers', body)
    ok = st == 200
    if inventories:
        st, _ = api.call('PUT', '/resource_providers/%s/inventories' % u,
                         {'resource_provider_generation': 0,
                          'inventories': inventories})
        ok = ok and st == 200
    return u, ok


def host(api, i):
    """(root uuid, ok) of host i, its usage or its trait set"""
    root, ok = provider(api, 'walk-%d' % i, None,
                        {'CUSTOM_WALK_A': {'total': 4},
                         'CUSTOM_WALK_B': {'total': 8}})
    _, ok2 = provider(api, 'walk-%d-nic' % i, root,
                      {'CUSTOM_WALK_PKT': {'total': 1000}})
    ok = ok and ok2
    kind = i % EVERY
    if kind >= EVERY - 2:
        st, _ = api.call('PUT', '/resource_providers/%s/traits' % root,
                         {'traits': ['COMPUTE_STATUS_DISABLED'],
                          'resource_provider_generation': 1})
        return root, ok and st == 200
    used = {'CUSTOM_WALK_A': 1, 'CUSTOM_WALK_B': 2} if kind == 0 \
        else {'CUSTOM_WALK_A': 4}
    st, _ = api.call('PUT', '/allocations/' + str(uuid.uuid4()),
                     {'allocations': {root: {'resources': used}},
                      'project_id': str(uuid.uuid4()),
                      'user_id': str(uuid.uuid4()),
                      'consumer_generation': None,
                      'consumer_type': 'INSTANCE'})
    return root, ok and st == 204


def candidates(api_url, query):
    """(status, body, request id) of one GET"""
    req = urllib.request.Request(
        api_url.rstrip('/') + '/allocation_candidates?' + query,
        headers=HEADERS)
    with urllib.request.urlopen(req, timeout=60) as resp:
        return (resp.status, json.loads(resp.read()),
                resp.headers['x-openstack-request-id'])


def rounds(log, rid):
    """how many rounds the debug line of request rid says read its trees"""
    for _ in range(30):
        with open(log, errors='replace') as f:
            for ln in f:
                if rid in ln and 'allocation candidates:' in ln:
                    word = ln.split('; trees ')[1].split(' read')[0]
                    return int(word.split(' in ')[1])
        time.sleep(0.1)
    return None


def roots_of(body):
    return [list(a['allocations']) for a in body['allocation_requests']]


def main():
    api_url, db_url, log = sys.argv[1:4]
    placeholder(db_url)
    api = Api(api_url)
    for rc in ('CUSTOM_WALK_A', 'CUSTOM_WALK_B', 'CUSTOM_WALK_PKT'):
        api.call('PUT', '/resource_classes/' + rc)
    made = [host(api, i) for i in range(HOSTS)]
    check('60 hosts made: 5 with room, 45 full, 10 disabled',
          all(ok for _, ok in made))
    free = [made[i][0] for i in FREE]

    st, whole, rid = candidates(api_url, QUERY + '&limit=1000')
    check('limit=1000 (the set): 200, the 5 hosts with room, in order',
          st == 200 and roots_of(whole) == [[u] for u in free],
          (st, roots_of(whole)))
    check('... read in one round', rounds(log, rid) == 1, rounds(log, rid))
    summaries = whole.get('provider_summaries', {})
    check('... each host summed: 1 of 4 A, 2 of 8 B used',
          all(summaries.get(u, {}).get('resources') ==
              {'CUSTOM_WALK_A': {'capacity': 4, 'used': 1},
               'CUSTOM_WALK_B': {'capacity': 8, 'used': 2}}
              for u in free), summaries)

    for limit, reads in ((1, 1), (3, 2), (5, 2), (6, 2)):
        st, body, rid = candidates(api_url, QUERY + '&limit=%d' % limit)
        want = min(limit, len(free))
        check('limit=%d (the walk): the first %d of the set\'s answer'
              % (limit, want),
              st == 200 and body['allocation_requests'] ==
              whole['allocation_requests'][:want], (st, roots_of(body)))
        check('... the same summaries as the set\'s for them',
              all(body['provider_summaries'].get(u) == summaries.get(u)
                  for u in free[:want]), body.get('provider_summaries'))
        n = rounds(log, rid)
        check('... read in %d round%s' % (reads, 's' if reads > 1 else ''),
              n == reads, n)

    # A child remembers how many trees the last request of a shape needed
    # per candidate, and reads that many first: limit=3 again takes one
    # round where a child has seen it. Of 4 more, at most one is the
    # other child's first (two children), so 3 at least take one round.
    again = [candidates(api_url, QUERY + '&limit=3') for _ in range(4)]
    check('limit=3 four times more: the same answer each time',
          all(st == 200 and body['allocation_requests'] ==
              whole['allocation_requests'][:3] for st, body, _ in again),
          [roots_of(body) for _, body, _ in again])
    n = [rounds(log, rid) for _, _, rid in again]
    check('... 3 of them at least read in one round, none in more than 2',
          n.count(1) >= 3 and all(x in (1, 2) for x in n), n)


if __name__ == '__main__':
    try:
        main()
    except Exception as e:  # a crash is a failed check, not a silent pass
        check('the walk checks ran', False, repr(e))
