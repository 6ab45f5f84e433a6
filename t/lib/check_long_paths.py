#!/usr/bin/python3
"""Paths of 4096 bytes and more get placement's JSON 404 and leave no
long line in the error log (issue 23: httpd mapped them onto the
document root, failed with "File name too long", answered its HTML 403
and logged the whole request line at error, for anyone, without a
token). A request line longer than LimitRequestLine (8190 bytes) is
httpd's own 414, before any module.

usage: check_long_paths.py API_URL ERROR_LOG
Prints "ok ..." / "not ok ..." lines.
"""

import http.client
import json
import sys
import time
import urllib.parse

# the longest error-log line allowed: a bounded detail (200 bytes of the
# client's text and its length) plus the line's own words
LINE_MAX = 600

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'openstack-api-version': 'placement latest'}


def call(url, method, path):
    """(status, content type, body bytes)"""
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request(method, u.path.rstrip('/') + path, headers=HEADERS)
        resp = conn.getresponse()
        return resp.status, resp.getheader('content-type', ''), resp.read()
    finally:
        conn.close()


def placement_404(body):
    """Whether body is upstream's error document of a 404."""
    try:
        err = json.loads(body.decode('utf-8'))['errors'][0]
    except (ValueError, KeyError, IndexError, TypeError):
        return False
    return (err.get('status') == 404 and err.get('title') == 'Not Found' and
            err.get('detail', '').startswith(
                'The resource could not be found.') and
            err.get('request_id', '').startswith('req-'))


def main():
    url, log = sys.argv[1:3]
    prefix = len(urllib.parse.urlsplit(url).path.rstrip('/'))
    cases = []
    # whole request paths (with the mount point) of 4095 bytes and more
    for total in (4095, 4096, 5000, 8000):
        seg = 'a' * (total - prefix - len('/resource_providers/'))
        cases.append(('GET', '/resource_providers/' + seg, total))
    cases.append(('GET', '/' + 'b' * (6000 - prefix - 1), 6000))
    cases.append(('DELETE', '/resource_providers/' + 'c' * 5000,
                  prefix + 5020))
    for method, path, total in cases:
        st, ctype, body = call(url, method, path)
        check = (st == 404 and ctype.startswith('application/json') and
                 placement_404(body))
        print('%s long paths: %s of a %d-byte path is a JSON 404%s' % (
            'ok' if check else 'not ok', method, total,
            '' if check else ': %s %s %r' % (st, ctype, body[:120])))

    # over LimitRequestLine: httpd's 414 (what docs/operations.md says)
    st, _, _ = call(url, 'GET', '/resource_providers/' + 'd' * 8200)
    print('%s long paths: a request line over 8190 bytes is httpd\'s 414%s' % (
        'ok' if st == 414 else 'not ok', '' if st == 414 else ': %s' % st))

    time.sleep(0.5)             # the last lines reach the log
    with open(log, 'rb') as f:
        lines = f.read().split(b'\n')
    longest = max(len(ln) for ln in lines)
    print('%s long paths: no error-log line over %d bytes%s' % (
        'ok' if longest <= LINE_MAX else 'not ok', LINE_MAX,
        '' if longest <= LINE_MAX else ': one of %d' % longest))
    mapped = [ln for ln in lines if b'AH00127' in ln]
    print('%s long paths: no "Cannot map ... to file" (AH00127)%s' % (
        'ok' if not mapped else 'not ok',
        '' if not mapped else ': %d lines' % len(mapped)))
    cut = [ln for ln in lines if b'PL00201' in ln and b' bytes)' in ln]
    print('%s long paths: the 404s are logged at debug, their detail cut%s' % (
        'ok' if cut else 'not ok', '' if cut else ': no such line'))


if __name__ == '__main__':
    main()
