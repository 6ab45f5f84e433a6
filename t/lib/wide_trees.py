#!/usr/bin/python3
"""Wide trees and long trait lists in GET /allocation_candidates (issue 12
items 1-3, issue 13 item 1).

usage: wide_trees.py API_URL STRATEGY
STRATEGY is the PlacementAllocationCandidatesStrategy the server runs
with (breadth-first or depth-first). Creates two compute roots with 64
children each holding one CUSTOM_WIDE, one child of each with
CUSTOM_PF_ODD, and a flat provider with VCPU and 40 traits; then checks
that 65 one-unit groups on 64 children answer 200 with no candidates
(both policies), that 64 groups answer within limit, which roots a
limited answer covers under STRATEGY, and that required= with 200
traits (one repeated) answers as with one.
Prints "ok ..." / "not ok ..." lines.
"""

import sys
import uuid

from placement_client import Api, check


def groups(n, extra='', policy='none', limit=None):
    q = ['resources%d=CUSTOM_WIDE:1' % (i + 1) for i in range(n)]
    if extra:
        q[-1] += ',' + extra
    q.append('group_policy=' + policy)
    if limit:
        q.append('limit=%d' % limit)
    return '/allocation_candidates?' + '&'.join(q)


def roots_of(api, body, root_of):
    return {root_of[rp] for ar in body['allocation_requests']
            for rp in ar['allocations']}


def main():
    api = Api(sys.argv[1])
    strategy = sys.argv[2]
    for rc in ('CUSTOM_WIDE', 'CUSTOM_PF_ODD'):
        api.call('PUT', '/resource_classes/' + rc)
    root_of, roots = {}, []
    for r in range(2):
        ru = str(uuid.uuid4())
        st, _ = api.call('POST', '/resource_providers',
                         {'name': 'wide-%d' % r, 'uuid': ru})
        roots.append(ru)
        for c in range(64):
            cu = str(uuid.uuid4())
            st2, _ = api.call('POST', '/resource_providers',
                              {'name': 'wide-%d-%d' % (r, c), 'uuid': cu,
                               'parent_provider_uuid': ru})
            inv = {'CUSTOM_WIDE': {'total': 1}}
            if c == 5:
                inv['CUSTOM_PF_ODD'] = {'total': 1}
            st3, _ = api.call('PUT', '/resource_providers/%s/inventories'
                              % cu, {'resource_provider_generation': 0,
                                     'inventories': inv})
            if st2 != 200 or st3 != 200:
                check('wide: tree loaded', False, (st2, st3))
                return
            root_of[cu] = ru
    check('wide: two roots of 64 children loaded', st == 200, st)

    for policy in ('none', 'isolate'):
        st, body = api.call('GET', groups(65, policy=policy, limit=1000))
        check('wide: 65 groups on 64 children, %s: 200, no candidates'
              % policy, st == 200 and body['allocation_requests'] == []
              and body['provider_summaries'] == {}, (st, body))
        st, body = api.call('GET', groups(65, policy=policy))
        check('wide: 65 groups, %s, no limit: 200, no candidates' % policy,
              st == 200 and body['allocation_requests'] == [], st)
        # the last group needs the one child with CUSTOM_PF_ODD, which the
        # first groups would take first: pruning must find the rest
        st, body = api.call('GET', groups(64, 'CUSTOM_PF_ODD:1', policy,
                                          limit=5))
        ok = st == 200 and len(body['allocation_requests']) == 5
        for ar in body['allocation_requests'] if ok else []:
            ok = ok and len(ar['allocations']) == 64 and all(
                ar['mappings']['64'][0] in ar['allocations']
                and 'CUSTOM_PF_ODD' in ar['allocations'][
                    ar['mappings']['64'][0]]['resources']
                for _ in [0])
        check('wide: 64 groups, the last needing the one odd child, %s: '
              '5 whole candidates' % policy, ok, (st, body)[:1])

    st, body = api.call('GET', groups(64, policy='isolate', limit=10))
    got = roots_of(api, body, root_of) if st == 200 else set()
    check('wide: 64 isolated groups, limit=10: 10 candidates',
          st == 200 and len(body['allocation_requests']) == 10, st)
    if strategy == 'breadth-first':
        check('wide: breadth-first: the limited answer covers both roots',
              got == set(roots), got)
        first = [root_of[next(iter(ar['allocations']))]
                 for ar in body['allocation_requests']]
        check('wide: breadth-first: roots taken in turn',
              first == [roots[0], roots[1]] * 5, first)
    else:
        check('wide: depth-first: the limited answer is the first root\'s',
              got == {roots[0]}, got)
    st2, body2 = api.call('GET', groups(64, policy='isolate', limit=10))
    check('wide: the same request answers the same', body2 == body)
    st, body = api.call('GET', groups(3, policy='isolate'))
    check('wide: 3 isolated groups, no limit: 2 x 64*63*62 candidates',
          st == 200 and len(body['allocation_requests']) == 2 * 64 * 63 * 62,
          len(body['allocation_requests']) if st == 200 else st)

    # many traits (issue 13 item 1)
    rp = str(uuid.uuid4())
    traits = ['CUSTOM_MANY_%03d' % i for i in range(40)]
    for t in traits + ['CUSTOM_MANY_ABSENT']:
        api.call('PUT', '/traits/' + t)
    api.call('POST', '/resource_providers', {'name': 'many', 'uuid': rp})
    api.call('PUT', '/resource_providers/%s/inventories' % rp,
             {'resource_provider_generation': 0,
              'inventories': {'VCPU': {'total': 8}}})
    st, _ = api.call('PUT', '/resource_providers/%s/traits' % rp,
                     {'resource_provider_generation': 1, 'traits': traits})
    check('traits: provider with 40 traits', st == 200, st)
    base = '/allocation_candidates?resources=VCPU:1&required='
    for name, req, want in (
            ('one trait 200 times', [traits[0]] * 200, 1),
            ('40 traits, 5 times each', traits * 5, 1),
            ('200 traits, one the provider lacks',
             traits * 4 + [traits[3]] * 39 + ['CUSTOM_MANY_ABSENT'], 0),
            # one the provider has, forbidden and not also required (both
            # at once is upstream's 400)
            ('200 traits, one of them forbidden',
             traits[:39] * 5 + [traits[1]] * 4 + ['!' + traits[39]], 0)):
        st, body = api.call('GET', base + ','.join(req))
        n = len(body['allocation_requests']) if st == 200 else -1
        check('traits: required= %s: %d candidate(s)' % (name, want),
              n == want, (st, n))
    st, body = api.call('GET', '/allocation_candidates?resources=VCPU:1'
                        '&root_required=' + ','.join(traits * 5))
    check('traits: root_required= 200 traits: 1 candidate',
          st == 200 and len(body['allocation_requests']) == 1, st)
    st, body = api.call('GET', '/allocation_candidates?resources1=VCPU:1'
                        '&required1=' + ','.join(traits * 5)
                        + '&required1=in:%s,CUSTOM_MANY_ABSENT' % traits[2]
                        + '&required1=in:CUSTOM_MANY_ABSENT,%s' % traits[2])
    check('traits: granular required with repeated any-of sets: 1',
          st == 200 and len(body['allocation_requests']) == 1, (st, body))


if __name__ == '__main__':
    main()
