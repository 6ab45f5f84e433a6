#!/usr/bin/python3
"""The database goes away under a running server, then comes back
(issue 11: a 5xx leaves an error line with its request id; issue 13: a
database that goes away gives a JSON 5xx, never a crash, and the service
recovers by itself).

On PostgreSQL the database is closed to new connections and the server's
open ones are terminated; then it is opened again. Other backends have no
such switch from outside: the script prints nothing for them.

usage: check_db_outage.py API_URL BACKEND DB_URL ERROR_LOG
Prints "ok ..." / "not ok ..." lines.
"""

import http.client
import json
import sys
import time
import urllib.parse


def call(url):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request('GET', u.path.rstrip('/') + '/resource_providers',
                 headers={'x-auth-token': 'admin',
                          'openstack-api-version': 'placement latest'})
    resp = conn.getresponse()
    body = resp.read().decode('utf-8', 'replace')
    return resp.status, resp.getheader('x-openstack-request-id'), body


def check(name, cond, detail=''):
    print('%s database outage: %s%s' % ('ok' if cond else 'not ok', name,
                                        '' if cond else ': %s' % detail))


def switch(dsn, dbname, allow):
    import psycopg2
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute('ALTER DATABASE "%s" ALLOW_CONNECTIONS %s'
                % (dbname, 'true' if allow else 'false'))
    if not allow:
        cur.execute('SELECT pg_terminate_backend(pid) FROM pg_stat_activity'
                    ' WHERE datname = %s AND pid <> pg_backend_pid()',
                    (dbname,))
    conn.close()


def main():
    url, backend, db_url, log = sys.argv[1:5]
    if backend != 'pgsql':
        return
    u = urllib.parse.urlsplit(db_url)
    dbname = u.path.lstrip('/')
    admin = ('host=%s port=%s user=%s password=%s dbname=postgres'
             % (u.hostname, u.port, u.username, u.password))
    st, _, _ = call(url)
    check('the server answers first', st == 200, st)
    switch(admin, dbname, False)
    try:
        statuses = [call(url) for _ in range(4)]
    finally:
        switch(admin, dbname, True)
    bad = [s for s in statuses if s[0] < 500]
    check('every request meanwhile is a 5xx', not bad, bad)
    as_json = all(json.loads(b)['errors'][0]['request_id'] == rid
                  for _, rid, b in statuses)
    check('each 5xx is a JSON error with its request id', as_json,
          statuses[0][2][:200])
    time.sleep(0.5)
    with open(log, errors='replace') as f:
        text = f.read()
    unlogged = [rid for _, rid, _ in statuses
                if not any(rid in ln and ':error]' in ln
                           for ln in text.splitlines())]
    check('each 5xx has an error line with its request id', not unlogged,
          unlogged)
    for _ in range(20):
        st, _, _ = call(url)
        if st == 200:
            break
        time.sleep(0.5)
    check('the service recovers by itself', st == 200, st)


if __name__ == '__main__':
    main()
