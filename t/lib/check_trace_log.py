#!/usr/bin/python3
"""Make requests and find their trace lines in the error log of a server
whose API location has LogLevel placement:trace1 and whose
/placement/resource_classes has LogLevel warn (t/api/trace-log.yaml).

usage: check_trace_log.py API_URL ERROR_LOG
Prints "ok ..." / "not ok ..." lines.
"""

import http.client
import json
import re
import sys
import time
import urllib.parse
import uuid

HEADERS = {'x-auth-token': 'admin', 'openstack-api-version':
           'placement latest', 'content-type': 'application/json'}
STATEMENT = re.compile(r'PL05000: sql (prepared|kept|text) (\d+\.\d{3}) ms, '
                       r'(\d+) rows(, failed)?: (.+)$')


def call(url, method, path, body=None):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request(method, u.path.rstrip('/') + path,
                 body=json.dumps(body) if body is not None else None,
                 headers=HEADERS)
    resp = conn.getresponse()
    data = resp.read()
    return resp.status, resp.getheader('x-openstack-request-id'), data


def lines_of(log, rid):
    # the server writes each line as it logs; give a slow host a moment
    for _ in range(20):
        with open(log, errors='replace') as f:
            found = [ln.rstrip('\n') for ln in f if rid in ln]
        if found:
            return found
        time.sleep(0.1)
    return []


def report(ok, name, why=''):
    print('%s trace log: %s%s' % ('ok' if ok else 'not ok', name,
                                  '' if ok else ': ' + why))


def main():
    url, log = sys.argv[1:3]
    uuids = [str(uuid.uuid4()) for _ in range(3)]
    for i, u in enumerate(uuids):
        call(url, 'POST', '/resource_providers',
             {'name': 'trace-%d-%s' % (i, u[:8]), 'uuid': u})

    # a read: its statements, the listing's with the three providers
    st, rid, _ = call(url, 'GET', '/resource_providers')
    lines = lines_of(log, rid)
    stmts = [STATEMENT.search(ln) for ln in lines]
    stmts = [m for m in stmts if m]
    report(st == 200 and stmts != [], 'a listing logs its statements',
           'status %s, %d lines: %r' % (st, len(lines), lines[:3]))
    report(any(m.group(3) == '3' and 'FROM resource_provider' in m.group(5)
               for m in stmts),
           'the listing statement shows its 3 rows',
           repr([m.group(0) for m in stmts]))
    report(all('[placement:trace1]' in ln for ln in lines if 'PL050' in ln),
           'statements are logged at trace1', repr(lines[:2]))
    # httpd prints a trace line's source position: the store's pl_log
    # call, not the glue's function that forwards it (pl_req_log.c);
    # httpd keeps only the base name of an absolute path (a VPATH build)
    report(stmts != [] and
           all(re.search(r' (mod_placement/store/)?\w+\.c\(\d+\): ', ln)
               and 'pl_req_log.c(' not in ln
               for ln in lines if 'PL05000' in ln),
           "a statement's line gives the store's file and line",
           repr(lines[:2]))

    # a write: begin, its statements, commit, in that order
    body = {'resource_provider_generation': 0,
            'inventories': {'VCPU': {'total': 8}}}
    path = '/resource_providers/%s/inventories' % uuids[0]
    st, rid, _ = call(url, 'PUT', path, body)
    lines = lines_of(log, rid)
    marks = [m.group(1) for m in
             (re.search(r'PL0500[34]: sql (begin|commit|rollback)$', ln)
              for ln in lines) if m]
    report(st == 200 and marks[:1] == ['begin'] and marks[-1:] == ['commit'],
           'a write logs begin ... commit', 'status %s, %r' % (st, marks))
    inserts = [ln for ln in lines if 'INSERT INTO inventories' in ln]
    report(len(inserts) == 1 and ', 1 rows:' in inserts[0],
           'the inventory INSERT shows its one row changed', repr(inserts))

    # a stale generation: the provider is read, nothing is written
    st, rid, _ = call(url, 'PUT', path, body)
    lines = lines_of(log, rid)
    report(st == 409 and any(STATEMENT.search(ln) for ln in lines) and
           not any(re.search(r'PL05004: sql commit|'
                             r'rows: (INSERT|UPDATE|DELETE)', ln)
                   for ln in lines),
           'a stale generation logs its read and no write',
           'status %s, %r' % (st, lines[-3:]))

    # where LogLevel stays at warn, nothing is traced
    st, rid, _ = call(url, 'GET', '/resource_classes')
    traced = [ln for ln in lines_of(log, rid) if 'PL050' in ln]
    report(st == 200 and traced == [],
           'a location at warn traces nothing', repr(traced[:2]))


if __name__ == '__main__':
    main()
