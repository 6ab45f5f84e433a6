#!/usr/bin/python3
"""A served configuration bounds allocation candidates (issue 23 item 5):
a request without limit (or with a higher one) gets at most MAXIMUM
candidates where many more exist, so that one request cannot cost
gigabytes. Run against the configurations the project ships (make run's,
the Debian package's), it shows they set PlacementMaxAllocationCandidates.

usage: check_candidate_bound.py API_URL MAXIMUM
The layout: a root with 12 children of 1 unit each (CUSTOM_BOUND), asked
for 4 isolated groups of 1 unit: 12 x 11 x 10 x 9 = 11,880 candidates, so
MAXIMUM must be below that. Prints "ok ..." / "not ok ..." lines.
"""

import json
import sys
import time
import urllib.request
import uuid

from placement_client import Api, check

CHILDREN, GROUPS, EXIST = 12, 4, 12 * 11 * 10 * 9
QUERY = '&'.join(['resources%d=CUSTOM_BOUND:1' % (i + 1)
                  for i in range(GROUPS)] + ['group_policy=isolate'])


def build(api_url, children=CHILDREN):
    api = Api(api_url)
    api.call('PUT', '/resource_classes/CUSTOM_BOUND')
    root = str(uuid.uuid4())
    st, _ = api.call('POST', '/resource_providers',
                     {'name': 'bound-' + root, 'uuid': root})
    ok = st == 200
    for i in range(children):
        child = str(uuid.uuid4())
        st1, _ = api.call('POST', '/resource_providers',
                          {'name': 'bound-' + child, 'uuid': child,
                           'parent_provider_uuid': root})
        st2, _ = api.call('PUT', '/resource_providers/%s/inventories' % child,
                          {'resource_provider_generation': 0,
                           'inventories': {'CUSTOM_BOUND': {'total': 1}}})
        ok = ok and st1 == 200 and st2 == 200
    return ok


def candidates(api_url, extra):
    """(status, candidates, bytes, seconds)"""
    req = urllib.request.Request(
        api_url.rstrip('/') + '/allocation_candidates?' + QUERY + extra,
        headers={'x-auth-token': 'admin', 'accept': 'application/json',
                 'openstack-api-version': 'placement 1.39'})
    t0 = time.monotonic()
    with urllib.request.urlopen(req, timeout=300) as resp:
        data = resp.read()
        return (resp.status, len(json.loads(data)['allocation_requests']),
                len(data), time.monotonic() - t0)


def main():
    api_url, maximum = sys.argv[1], int(sys.argv[2])
    built = maximum < EXIST and build(api_url)
    check('a root with %d one-unit children (%d candidates for %d isolated '
          'groups)' % (CHILDREN, EXIST, GROUPS), built)
    if not built:
        return
    for extra, want in (('', maximum), ('&limit=%d' % (EXIST * 2), maximum),
                        ('&limit=10', 10)):
        st, n, size, secs = candidates(api_url, extra)
        check('%s: %d of the %d candidates (%d bytes, %.2f s)'
              % ('limit=' + extra.split('=')[1] if extra else 'no limit',
                 want, EXIST, size, secs),
              st == 200 and n == want, (st, n))


if __name__ == '__main__':
    try:
        main()
    except Exception as e:  # the runners count lines, not exit statuses
        check('check_candidate_bound.py ran to its end', False, repr(e))
