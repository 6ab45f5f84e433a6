#!/usr/bin/python3
"""A listing of providers too large for one 64 KB piece is written to the
client as it is produced, and is the text upstream writes: each provider
in it byte for byte its own GET, spaced and escaped as json.dumps does,
its keys in upstream's order, the links of the microversion, and the
Last-Modified of the latest provider (1.15+).

usage: check_provider_list.py API_URL [N]
Makes N providers (default 200; a third children of the one before, names
with quotes, backslashes, accents and a character outside the BMP), then
at several microversions reads GET /resource_providers whole and checks
it against the providers' own answers. Prints "ok ..." / "not ok ..."
lines.
"""

import email.utils
import json
import sys
import urllib.parse
import uuid

from placement_client import Api, check

# what upstream's _serialize_links gives each microversion
RELS = [('inventories', (1, 0)), ('usages', (1, 0)),
        ('aggregates', (1, 1)), ('traits', (1, 6)),
        ('allocations', (1, 11))]
NAMES = ['plain-%d', 'quote "%d" and \\ backslash', 'n\u0153ud-\u00e9t\u00e9-%d',
         'host \U0001F5A5 %d', 'tab\tand/slash %d']


def raw_get(url, path, mv):
    """(status, headers dict in lower case, body bytes), on a connection
    of its own"""
    api = Api(url)
    resp = api.send('GET', path, None, mv)
    body = resp.read()
    api.conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, body


def main():
    url = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    prefix = urllib.parse.urlsplit(url).path.rstrip('/')
    api = Api(url)
    made, parent = [], None
    for i in range(n):
        body = {'name': NAMES[i % len(NAMES)] % i, 'uuid': str(uuid.uuid4())}
        if parent and i % 3 == 1:
            body['parent_provider_uuid'] = parent
        st, _ = api.call('POST', '/resource_providers', body)
        if st != 200:
            check('provider %d made' % i, False, st)
            return
        made.append(body['uuid'])
        parent = body['uuid']
    check('%d providers made' % n, True)

    for mv in ('1.0', '1.6', '1.14', '1.29', '1.39'):
        major, minor = (int(x) for x in mv.split('.'))
        st, hdrs, text = raw_get(url, '/resource_providers', mv)
        check('%s: the listing answers 200' % mv, st == 200, st)
        check('%s: a listing over 64 KB goes out chunked' % mv,
              hdrs.get('transfer-encoding') == 'chunked'
              and 'content-length' not in hdrs, hdrs)
        listing = json.loads(text)
        provs = listing['resource_providers']
        uuids = [p['uuid'] for p in provs]
        check('%s: every provider made is listed once' % mv,
              all(uuids.count(u) == 1 for u in made), len(uuids))

        singles, dates = [], []
        for u in uuids:
            st, h, one = raw_get(url, '/resource_providers/' + u, mv)
            singles.append(one)
            if 'last-modified' in h:
                dates.append(email.utils.parsedate_to_datetime(
                    h['last-modified']))
        check('%s: the listing is its providers\' own answers' % mv,
              text == b'{"resource_providers": [' + b', '.join(singles)
              + b']}', text[:200])
        check('%s: written as json.dumps writes it' % mv,
              text == json.dumps(listing).encode('ascii'), text[:200])

        keys = ['uuid', 'name', 'generation', 'links']
        if (major, minor) >= (1, 14):
            keys += ['parent_provider_uuid', 'root_provider_uuid']
        check('%s: keys in upstream\'s order' % mv,
              all(list(p) == keys for p in provs), list(provs[0]))
        rels = ['self'] + [r for r, since in RELS if (major, minor) >= since]
        bad = [p['uuid'] for p in provs
               if [l['rel'] for l in p['links']] != rels
               or [l['href'] for l in p['links']] !=
               [prefix + '/resource_providers/' + p['uuid']
                + ('' if r == 'self' else '/' + r) for r in rels]]
        check('%s: the links of the microversion' % mv, not bad, bad[:3])
        names = {p['uuid']: p['name'] for p in provs}
        check('%s: names read back as written' % mv,
              [names[u] for u in made] ==
              [NAMES[i % len(NAMES)] % i for i in range(n)])
        if (major, minor) >= (1, 15):
            check('%s: Last-Modified is the latest provider\'s' % mv,
                  email.utils.parsedate_to_datetime(hdrs['last-modified'])
                  == max(dates), (hdrs.get('last-modified'), max(dates)))

    st, hdrs, text = raw_get(url, '/resource_providers?uuid=' + made[0],
                             '1.39')
    check('a short listing keeps its Content-Length',
          st == 200 and hdrs.get('content-length') == str(len(text))
          and 'transfer-encoding' not in hdrs, hdrs)


if __name__ == '__main__':
    main()
