#!/usr/bin/python3
"""Large trait lists cost linear memory and time (issue 13: a list of N
names grew a child by N^2 bytes, 50,000 names killed it).

usage: big_trait_lists.py API_URL
Creates a provider, sets 50,000 unknown names on it (one 400 naming them
all, the child alive), then 500 real ones (200, all listed back).
Prints "ok ..." / "not ok ..." lines.
"""

import http.client
import sys
import uuid

from placement_client import Api, check


def main():
    api = Api(sys.argv[1])
    rp = str(uuid.uuid4())
    st, _ = api.call('POST', '/resource_providers', {'name': 'big', 'uuid': rp})
    check('big lists: provider created', st == 200, st)

    unknown = ['CUSTOM_UNKNOWN_%05d' % i for i in range(50000)]
    try:
        st, body = api.call('PUT', '/resource_providers/%s/traits' % rp,
                            {'resource_provider_generation': 0,
                             'traits': unknown})
        detail = body['errors'][0]['detail'] if body else ''
        check('big lists: 50,000 unknown traits are one 400',
              st == 400 and 'No such trait CUSTOM_UNKNOWN_00000, '
              'CUSTOM_UNKNOWN_00001' in detail and 'CUSTOM_UNKNOWN_49999'
              in detail, (st, detail[:200]))
    except (OSError, http.client.HTTPException) as e:
        check('big lists: 50,000 unknown traits are one 400', False, repr(e))
        api = Api(sys.argv[1])

    real = ['CUSTOM_REAL_%04d' % i for i in range(500)]
    made = sum(api.call('PUT', '/traits/' + name)[0] == 201 for name in real)
    check('big lists: 500 custom traits created', made == 500, made)
    st, body = api.call('PUT', '/resource_providers/%s/traits' % rp,
                        {'resource_provider_generation': 0, 'traits': real})
    check('big lists: 500 traits set at once', st == 200 and
          sorted(body['traits']) == real, st)
    st, body = api.call('GET', '/resource_providers/%s/traits' % rp)
    check('big lists: the provider lists all 500', st == 200 and
          sorted(body['traits']) == real and
          body['resource_provider_generation'] == 1, st)


if __name__ == '__main__':
    main()
