#!/usr/bin/python3
"""Bodies whose strings are no UTF-8 as Python reads it are refused with
400 and store nothing (issue 23): a UTF-8-encoded surrogate (ED A0 80) and
an overlong form (C0 AF) passed json-c's check, answered 500 on PostgreSQL
(and MariaDB) and were stored raw on SQLite; upstream refuses them when it
decodes the body, in Python's words, which we give too. The escaped form
of a lone surrogate ("\\ud800") became U+FFFD and was stored; upstream
keeps it and fails writing it (500): it is refused with 400 here.

usage: check_bad_utf8.py API_URL
Prints "ok ..." / "not ok ..." lines.
"""

import http.client
import json
import sys
import urllib.parse

from placement_client import Api, check

# (what, raw body after '{"name": "', Python's decode error or our text)
BAD_NAMES = [
    ('an encoded surrogate (ED A0 80)', b'bad\xed\xa0\x80name',
     "Malformed JSON: 'utf-8' codec can't decode byte 0xed in position 13: "
     "invalid continuation byte"),
    ('an overlong / (C0 AF)', b'bad\xc0\xafname',
     "Malformed JSON: 'utf-8' codec can't decode byte 0xc0 in position 13: "
     "invalid start byte"),
    ('a sequence cut short (E2 82 then a quote)', b'bad\xe2\x82',
     "Malformed JSON: 'utf-8' codec can't decode bytes in position 13-14: "
     "invalid continuation byte"),
    ('an escaped lone surrogate', b'bad\\ud800name',
     'Malformed JSON: \\ud800 is not allowed in strings'),
    ('an escaped lone low surrogate', b'bad\\uDC00name',
     'Malformed JSON: \\udc00 is not allowed in strings'),
]


def post_raw(url, path, body):
    """(status, detail) of a POST of the raw bytes body"""
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    conn.request('POST', u.path.rstrip('/') + path, body=body,
                 headers={'x-auth-token': 'admin',
                          'accept': 'application/json',
                          'openstack-api-version': 'placement 1.39',
                          'content-type': 'application/json'})
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    try:
        detail = json.loads(raw.decode('utf-8'))['errors'][0]['detail']
    except (ValueError, KeyError, IndexError, TypeError):
        detail = raw[:200]
    return resp.status, detail


def main():
    url = sys.argv[1]
    api = Api(url)
    st, body = api.call('GET', '/resource_providers')
    providers = len(body['resource_providers']) if st == 200 else -1
    st, body = api.call('GET', '/resource_classes')
    classes = len(body['resource_classes']) if st == 200 else -1

    for what, raw, want in BAD_NAMES:
        st, detail = post_raw(url, '/resource_providers',
                              b'{"name": "' + raw + b'"}')
        check('utf-8: a provider name with %s is a 400' % what,
              st == 400 and want in str(detail), (st, detail))
        st, detail = post_raw(url, '/resource_classes',
                              b'{"name": "CUSTOM_' + raw + b'"}')
        # the class name is 7 bytes longer: positions move by 7
        want_rc = want.replace('position 13-14', 'position 20-21') \
                      .replace('position 13', 'position 20')
        check('utf-8: a class name with %s is a 400' % what,
              st == 400 and want_rc in str(detail), (st, detail))

    # a pair of escapes is one character: a good name
    st, detail = post_raw(url, '/resource_providers',
                          b'{"name": "emoji \\ud83d\\ude00"}')
    check('utf-8: an escaped surrogate pair is one character', st == 200,
          (st, detail))
    st, body = api.call('GET', '/resource_providers')
    check('utf-8: no bad provider was stored',
          st == 200 and len(body['resource_providers']) == providers + 1 and
          any(p['name'] == 'emoji \U0001f600'
              for p in body['resource_providers']), (st, body))
    st, body = api.call('GET', '/resource_classes')
    check('utf-8: no bad class was stored',
          st == 200 and len(body['resource_classes']) == classes,
          (st, body))


if __name__ == '__main__':
    main()
