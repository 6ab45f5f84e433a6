#!/usr/bin/python3
"""Allocation candidates cut short (issue 23 item 5): an answer the
engine's node budget stops is a 200 with fewer candidates than the
request allowed, so the operator must see it: a warning in the error log
carrying the request id (PL05101) at httpd's usual LogLevel warn, and the
counter placement_allocation_candidates_cut_total. An answer stopped by
PlacementMaxAllocationCandidates (below limit, or without one) counts in
placement_allocation_candidates_maximum_reached_total instead, and is not
logged; one stopped by limit counts in neither.

usage: check_candidate_cut.py API_URL METRICS_URL ERROR_LOG MAXIMUM
MAXIMUM is the server's PlacementMaxAllocationCandidates (below 120).
The layouts: a root with 10 children of 3 units each, asked for 11 groups
of 2 units (group_policy none): each child holds one group only, which
the engine's early checks cannot see, so its walk runs out of its node
budget (4 million) with no candidate; and a root with 6 children of 1
unit, asked for 3 isolated groups: 6 x 5 x 4 = 120 candidates.
Prints "ok ..." / "not ok ..." lines.
"""

import json
import sys
import time
import urllib.request
import uuid

from placement_client import Api, check, counters

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'openstack-api-version': 'placement 1.39'}
CUT = 'placement_allocation_candidates_cut_total'
AT_MAX = 'placement_allocation_candidates_maximum_reached_total'


def tree(api_url, rc, children, units):
    """a root with children, each holding units of rc"""
    api = Api(api_url)  # a connection of its own: the last may have idled
    api.call('PUT', '/resource_classes/' + rc)
    root = str(uuid.uuid4())
    st, _ = api.call('POST', '/resource_providers',
                     {'name': rc + '-root', 'uuid': root})
    ok = st == 200
    for i in range(children):
        child = str(uuid.uuid4())
        st1, _ = api.call('POST', '/resource_providers',
                          {'name': '%s-%d' % (rc, i), 'uuid': child,
                           'parent_provider_uuid': root})
        st2, _ = api.call('PUT', '/resource_providers/%s/inventories' % child,
                          {'resource_provider_generation': 0,
                           'inventories': {rc: {'total': units}}})
        ok = ok and st1 == 200 and st2 == 200
    check('%s: a root with %d children of %d units' % (rc, children, units),
          ok)


def candidates(api_url, query):
    """(status, number of candidates, request id) of one GET"""
    req = urllib.request.Request(
        api_url.rstrip('/') + '/allocation_candidates?' + query,
        headers=HEADERS)
    with urllib.request.urlopen(req, timeout=120) as resp:
        body = json.loads(resp.read())
        return (resp.status, len(body['allocation_requests']),
                resp.headers['x-openstack-request-id'])


def log_lines(log, rid, want):
    """the error log's lines with rid; wait a moment for want of them"""
    for _ in range(30 if want else 5):
        with open(log, errors='replace') as f:
            found = [ln.rstrip('\n') for ln in f if rid in ln]
        if found or not want:
            return found
        time.sleep(0.1)
    return []


def groups(n, amount, rc, policy):
    return '&'.join(['resources%d=%s:%d' % (i + 1, rc, amount)
                     for i in range(n)] + ['group_policy=' + policy])


def main():
    api_url, metrics_url, log, maximum = sys.argv[1:5]
    maximum = int(maximum)
    before = counters(metrics_url)
    check('the metrics have %s and %s' % (CUT, AT_MAX),
          CUT in before and AT_MAX in before, sorted(before))

    # --- the node budget ----------------------------------------------------
    tree(api_url, 'CUSTOM_CUT_PAIR', 10, 3)
    t0 = time.monotonic()
    st, n, rid = candidates(api_url, groups(11, 2, 'CUSTOM_CUT_PAIR', 'none'))
    check('11 groups of 2 on 10 children of 3: 200, no candidate (%.1f s)'
          % (time.monotonic() - t0), st == 200 and n == 0, (st, n))
    lines = log_lines(log, rid, True)
    warned = [ln for ln in lines if '[placement:warn]' in ln and
              'PL05101: the node budget cut the answer' in ln]
    check('the cut is logged at warn with its request id (%s)' % rid,
          len(warned) == 1, lines)
    check('... with the counters: bound, what stopped it, nodes',
          warned and 'stopped by the node budget' in warned[0] and
          'nodes 4000001' in warned[0], warned)
    after = counters(metrics_url)
    check('%s counts it' % CUT,
          after.get(CUT, 0) - before.get(CUT, 0) == 1, after.get(CUT))
    check('%s does not' % AT_MAX,
          after.get(AT_MAX, 0) - before.get(AT_MAX, 0) == 0,
          after.get(AT_MAX))

    # --- the configured maximum and limit -----------------------------------
    tree(api_url, 'CUSTOM_CUT_ONE', 6, 1)
    query = groups(3, 1, 'CUSTOM_CUT_ONE', 'isolate')
    cases = [('', maximum, 1), ('&limit=%d' % (maximum * 2), maximum, 1),
             ('&limit=%d' % (maximum // 2), maximum // 2, 0)]
    for extra, want, counted in cases:
        before = counters(metrics_url)
        st, n, rid = candidates(api_url, query + extra)
        after = counters(metrics_url)
        name = '3 isolated groups on 6 children%s' % (
            ' with limit=' + extra.split('=')[1] if extra else '')
        check('%s: %d of the 120 candidates' % (name, want),
              st == 200 and n == want, (st, n))
        check('... %s %s' % (AT_MAX, 'counts it' if counted else
                             'does not count it (the limit stopped it)'),
              after.get(AT_MAX, 0) - before.get(AT_MAX, 0) == counted,
              after.get(AT_MAX, 0) - before.get(AT_MAX, 0))
        check('... %s does not count it, no warning' % CUT,
              after.get(CUT, 0) == before.get(CUT, 0) and
              not [ln for ln in log_lines(log, rid, False)
                   if 'PL0510' in ln], rid)


if __name__ == '__main__':
    try:
        main()
    except Exception as e:  # t/run-api counts lines, not exit statuses
        check('check_candidate_cut.py ran to its end', False, repr(e))
