#!/usr/bin/python3
"""Make requests as different callers and find each in the access log
written with conf/placement.conf's "placement" LogFormat: the request id
the answer carried, the caller's global request id, the microversion,
user, project, route and status (issue 11: upstream's request log).

usage: check_request_log.py API_URL LOG_FILE HTTPD_CONF SHIPPED_CONF
The "placement" LogFormat of HTTPD_CONF (the test server's) must be the
one SHIPPED_CONF (conf/placement.conf) gives operators.
Prints "ok ..." / "not ok ..." lines.
"""

import http.client
import re
import sys
import time
import urllib.parse
import uuid

LINE = re.compile(r'^(?P<addr>\S+) "(?P<request>[^"]*)" status: (?P<status>\d+)'
                  r' len: (?P<len>\S+) microversion: (?P<mv>\S+)'
                  r' \[(?P<grid>\S+) (?P<rid>\S+) (?P<user>\S+) (?P<project>\S+)\]'
                  r' (?P<route>.+) (?P<us>\d+)us$')


def call(url, method, path, headers):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request(method, u.path.rstrip('/') + path, headers=headers)
    resp = conn.getresponse()
    resp.read()
    return resp.status, resp.getheader('x-openstack-request-id')


def log_format(conf):
    with open(conf) as f:
        for ln in f:
            if ln.startswith('LogFormat ') and ln.rstrip().endswith(
                    ' placement'):
                return ln.strip()
    return None


def main():
    url, log, conf, shipped = sys.argv[1:5]
    fmt = log_format(shipped)
    print('%s request log: the test uses the shipped LogFormat%s' % (
        ('ok', '') if fmt and fmt == log_format(conf)
        else ('not ok', ': %r' % fmt)))
    grid = 'req-' + str(uuid.uuid4())
    cases = [
        # name, method, path, headers, expected fields
        ('a listing with a global request id', 'GET', '/resource_providers',
         {'x-auth-token': 'admin:p-one', 'openstack-api-version':
          'placement 1.14', 'x-openstack-request-id': grid},
         {'status': '200', 'mv': '1.14', 'grid': grid, 'user': 'admin',
          'project': 'p-one', 'route': 'GET /resource_providers'}),
        ('a 404 of a known route', 'GET',
         '/resource_providers/' + str(uuid.uuid4()),
         {'x-auth-token': 'admin', 'openstack-api-version':
          'placement latest'},
         {'status': '404', 'mv': '1.39', 'grid': '-', 'user': 'admin',
          'project': 'admin', 'route': 'GET /resource_providers/{uuid}'}),
        ('a caller policy refuses', 'POST', '/resource_providers',
         {'x-auth-token': 'someone:p-two', 'openstack-api-version':
          'placement 1.20', 'content-type': 'application/json'},
         {'status': '403', 'user': 'someone', 'project': 'p-two',
          'route': 'POST /resource_providers'}),
    ]
    seen = []
    for name, method, path, headers, want in cases:
        status, rid = call(url, method, path, headers)
        seen.append((name, rid, want))
    time.sleep(0.5)             # the log line is written as the request ends
    lines = {}
    with open(log) as f:
        for ln in f:
            m = LINE.match(ln.rstrip('\n'))
            if m:
                lines[m.group('rid')] = m.groupdict()
    for name, rid, want in seen:
        got = lines.get(rid)
        bad = {k: (v, got.get(k)) for k, v in want.items()
               if got and got.get(k) != v}
        ok = got is not None and not bad
        print('%s request log: %s%s' % (
            'ok' if ok else 'not ok', name,
            '' if ok else ': %s' % (bad if got else 'no line for ' + str(rid))))


if __name__ == '__main__':
    main()
