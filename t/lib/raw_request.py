#!/usr/bin/python3
"""Send one request whose bytes gabbi cannot express (invalid UTF-8 in
the path, the query or the body) and check the status and that the
answer is JSON.

usage: raw_request.py API_URL NAME METHOD PATH EXPECTED_STATUS [BODY_FILE]
PATH is sent as given (percent-escapes stay escapes); the body, if any, is
the file's bytes as application/json. Prints one "ok NAME" or
"not ok NAME: ..." line.
"""

import http.client
import json
import sys
import urllib.parse


def main():
    url, name, method, path, want = sys.argv[1:6]
    body = open(sys.argv[6], 'rb').read() if len(sys.argv) > 6 else None
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    headers = {'x-auth-token': 'admin', 'accept': 'application/json',
               'openstack-api-version': 'placement latest'}
    if body is not None:
        headers['content-type'] = 'application/json'
    conn.putrequest(method, u.path.rstrip('/') + path, skip_accept_encoding=True)
    for k, v in headers.items():
        conn.putheader(k, v)
    if body is not None:
        conn.putheader('content-length', str(len(body)))
    conn.endheaders(body)
    resp = conn.getresponse()
    raw = resp.read()
    try:
        json.loads(raw.decode('utf-8'))
        is_json = True
    except ValueError:
        is_json = False
    if resp.status == int(want) and is_json:
        print('ok %s' % name)
    else:
        print('not ok %s: status %d (want %s), JSON answer: %s: %r'
              % (name, resp.status, want, is_json, raw[:200]))


if __name__ == '__main__':
    main()
