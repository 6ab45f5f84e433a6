#!/usr/bin/python3
"""Hundreds of any-of groups, member_of values and traits cost one
statement of linear size (issue 23 item 3: a subquery per set; 100
"required=in:A,B" groups took 8 s on PostgreSQL at 17,000 providers,
200 went past its 60 s statement timeout even on six providers, as GET
/resource_providers did with 200 traits, and on MariaDB 100 member_of
values).

usage: check_any_of_groups.py API_URL [ERROR_LOG [SECONDS]]
Six providers with VCPU; asks GET /allocation_candidates and GET
/resource_providers with 200 required=in: groups, 100 member_of values
(40 of them in: sets), 200 plain required traits and 200 forbidden
ones, and checks the providers each answers. With ERROR_LOG (a server
whose API has LogLevel placement:trace1), also that each request ran a
few statements (a lookup per name made 402 for 200 groups). Each
request must answer within SECONDS (default 3; before, four of the six
took 60 s on PostgreSQL and ended in a 500).
Prints "ok ..." / "not ok ..." lines and "# ..." lines with the times.
"""

import json
import re
import sys
import time
import uuid

from placement_client import Api, check

STATEMENT = re.compile(r'PL05000: sql ')
GROUPS = 200
MAX_STATEMENTS = 12


def make_provider(api, name, traits, aggs):
    rp = str(uuid.uuid4())
    api.call('POST', '/resource_providers', {'name': name, 'uuid': rp})
    api.call('PUT', '/resource_providers/%s/inventories' % rp,
             {'resource_provider_generation': 0,
              'inventories': {'VCPU': {'total': 8}}})
    api.call('PUT', '/resource_providers/%s/traits' % rp,
             {'resource_provider_generation': 1, 'traits': traits})
    api.call('PUT', '/resource_providers/%s/aggregates' % rp,
             {'resource_provider_generation': 2, 'aggregates': aggs})
    return rp


def statements(log, rid):
    """How many statements the request of id rid logged (None: no log)."""
    if log in (None, '-'):
        return None
    for _ in range(20):
        with open(log, errors='replace') as f:
            found = [ln for ln in f if rid in ln and STATEMENT.search(ln)]
        if found:
            return len(found)
        time.sleep(0.1)
    return 0


class Asker:
    def __init__(self, url, log, bound):
        self.api = Api(url)
        self.log = log
        self.bound = bound

    def ask(self, name, path, key, want):
        """GET path, check the providers named in the answer's key."""
        start = time.monotonic()
        self.api.conn.request('GET', self.api.prefix + path,
                              headers={'x-auth-token': 'admin',
                                       'openstack-api-version':
                                       'placement 1.39'})
        resp = self.api.conn.getresponse()
        body = resp.read().decode('utf-8')
        took = time.monotonic() - start
        rid = resp.getheader('x-openstack-request-id')
        got = None
        if resp.status == 200:
            doc = json.loads(body)
            if key == 'allocation_requests':
                got = sorted(rp for ar in doc[key]
                             for rp in ar['allocations'])
            else:
                got = sorted(rp['uuid'] for rp in doc[key])
        check('%s: the right providers' % name, got == sorted(want),
              (resp.status, body[:200], got, sorted(want)))
        check('%s: within %g s' % (name, self.bound), took < self.bound,
              '%.2f s' % took)
        n = statements(self.log, rid)
        print('# %s: %d, %.3f s, %s statements' % (name, resp.status, took, n))
        if n is not None:
            check('%s: at most %d statements' % (name, MAX_STATEMENTS),
                  0 < n <= MAX_STATEMENTS, n)


def main():
    url = sys.argv[1]
    log = sys.argv[2] if len(sys.argv) > 2 else None
    bound = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
    api = Api(url)
    names = ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'] + \
        ['CUSTOM_U%03d' % i for i in range(GROUPS)]
    made = sum(api.call('PUT', '/traits/' + n)[0] in (201, 204) for n in names)
    check('any-of: %d traits made' % len(names), made == len(names), made)
    x, y = str(uuid.uuid4()), str(uuid.uuid4())
    own = [str(uuid.uuid4()) for _ in range(40)]
    # A on 0-2, B on 1-4, C on 2, 4, 5; U199 on 1; aggregate x on 0-3,
    # y on 2-5, the 40 own ones on 5
    traits = [['CUSTOM_A'], ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_U199'],
              ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'], ['CUSTOM_B'],
              ['CUSTOM_B', 'CUSTOM_C'], ['CUSTOM_C']]
    aggs = [[x], [x], [x, y], [x, y], [y], [y] + own]
    rps = [make_provider(api, 'any-of-%d' % i, traits[i], aggs[i])
           for i in range(6)]

    # one of U<i> or A (i even) / B (i odd) each, the last U199 or C:
    # A and B, and C or U199: providers 1 and 2
    groups = ['required=in:CUSTOM_U%03d,%s' % (i, 'CUSTOM_A' if i % 2 == 0
                                               else 'CUSTOM_B')
              for i in range(GROUPS - 1)]
    groups.append('required=in:CUSTOM_U199,CUSTOM_C')
    want = [rps[1], rps[2]]
    asker = Asker(url, log, bound)
    asker.ask('%d any-of groups, candidates' % GROUPS,
              '/allocation_candidates?resources=VCPU:1&' + '&'.join(groups),
              'allocation_requests', want)
    asker.ask('%d any-of groups, providers' % GROUPS,
              '/resource_providers?' + '&'.join(groups),
              'resource_providers', want)

    # y 60 times, 40 in: sets of an own one and x: in y and x
    # (providers 2 and 3) or in y and all own ones (5)
    members = ['member_of=' + y] * 60 + \
        ['member_of=in:%s,%s' % (a, x) for a in own]
    want = [rps[2], rps[3], rps[5]]
    asker.ask('100 member_of groups, candidates',
              '/allocation_candidates?resources=VCPU:1&' + '&'.join(members),
              'allocation_requests', want)
    asker.ask('100 member_of groups, providers',
              '/resource_providers?' + '&'.join(members),
              'resource_providers', want)

    # A and B, 100 times each: providers 1 and 2
    plain = ['CUSTOM_A', 'CUSTOM_B'] * 100
    asker.ask('200 required traits, providers',
              '/resource_providers?required=' + ','.join(plain),
              'resource_providers', [rps[1], rps[2]])
    # A, none of the U ones: providers 0 and 2
    forbidden = ['!CUSTOM_U%03d' % i for i in range(GROUPS)]
    asker.ask('%d forbidden traits and A, candidates' % GROUPS,
              '/allocation_candidates?resources=VCPU:1&required=CUSTOM_A,'
              + ','.join(forbidden), 'allocation_requests',
              [rps[0], rps[2]])


if __name__ == '__main__':
    main()
