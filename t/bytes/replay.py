#!/usr/bin/python3
# Replay t/bytes/requests.txt against a placement API and record or
# compare the answers byte for byte.
#
#   replay.py record  API_URL EXPECTED_DIR    (upstream: write the answers)
#   replay.py compare API_URL EXPECTED_DIR    (ours: "ok N - ..." lines)
#
# Every request is sent as noauth2's admin (x-auth-token: admin), with
# accept: application/json, the request's microversion if it names one
# and content-type: application/json when it has a body. An answer is its
# status line, its content-type and its body bytes, stored as
# EXPECTED_DIR/NNN-name:
#
#   status: 200
#   content-type: application/json
#
#   {"resource_providers": [...]}
#
# Only one body field differs between two runs of the same requests:
# the request_id of error bodies (a random uuid); it is replaced by
# "req-X" before storing and comparing. Headers with dates (date,
# last-modified) and request ids are not compared at all.
#
# requests.txt: one request per line, "NAME METHOD PATH MV [BODY]", MV
# being a microversion or "-" (none sent); BODY is the rest of the line,
# sent as it is (UTF-8). Blank lines and lines starting with # are skipped.
import http.client
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
REQUEST_ID = re.compile(rb'"request_id": "req-[0-9a-f-]{36}"')


def requests():
    with open(os.path.join(HERE, 'requests.txt'), encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            parts = line.split(None, 4)
            name, method, path, mv = parts[:4]
            body = parts[4].encode('utf-8') if len(parts) > 4 else None
            yield name, method, path, None if mv == '-' else mv, body


def answer(conn, prefix, method, path, mv, body):
    headers = {'x-auth-token': 'admin', 'accept': 'application/json'}
    if mv:
        headers['openstack-api-version'] = 'placement ' + mv
    if body is not None:
        headers['content-type'] = 'application/json'
    conn.request(method, prefix + path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    data = REQUEST_ID.sub(b'"request_id": "req-X"', data)
    ctype = resp.getheader('content-type') or '-'
    return (b'status: %d\ncontent-type: %s\n\n'
            % (resp.status, ctype.encode('latin-1')) + data)


def first_difference(got, want):
    i = 0
    while i < min(len(got), len(want)) and got[i] == want[i]:
        i += 1
    lo = max(0, i - 40)
    return 'at byte %d: got %r, expected %r' % (
        i, got[lo:i + 60], want[lo:i + 60])


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ('record', 'compare'):
        sys.stderr.write(__doc__ if __doc__ else
                         'usage: replay.py record|compare API_URL DIR\n')
        return 2
    mode, url, outdir = sys.argv[1:]
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    prefix = u.path.rstrip('/')
    if mode == 'record':
        os.makedirs(outdir, exist_ok=True)
        for old in os.listdir(outdir):
            os.unlink(os.path.join(outdir, old))
    passed = failed = 0
    for n, (name, method, path, mv, body) in enumerate(requests(), 1):
        got = answer(conn, prefix, method, path, mv, body)
        fname = os.path.join(outdir, '%03d-%s' % (n, name))
        if mode == 'record':
            with open(fname, 'wb') as f:
                f.write(got)
            print('%s %s %s -> %s' % (method, path, mv or '-',
                                      got.split(b'\n', 1)[0].decode()))
            continue
        try:
            with open(fname, 'rb') as f:
                want = f.read()
        except OSError:
            print('not ok %d - %s: no recorded answer %s' % (n, name, fname))
            failed += 1
            continue
        if got == want:
            print('ok %d - %s (%s %s)' % (n, name, method, path))
            passed += 1
        else:
            print('not ok %d - %s (%s %s at %s)' % (n, name, method, path,
                                                    mv or '-'))
            print('#   ' + first_difference(got, want))
            failed += 1
    if mode == 'compare':
        print('bytes: %d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
