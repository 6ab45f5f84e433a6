#!/usr/bin/python3
"""The database goes away under a running server, in the middle of a
request, then comes back (issue 11: a 5xx leaves an error line with its
request id; issue 13: a database that goes away gives a JSON 5xx, never a
crash, and the service recovers by itself).

PostgreSQL: the database is closed to new connections and the server's
open ones are terminated; then it is opened again. MariaDB: mariadbd is
killed with SIGKILL, then started again on the same datadir and port
(scripts/lib-db.sh mysql_kill / mysql_restart; only the private server
whose directory is MYSQL_DIR, and only if DB_URL points at it). SQLite
has no such outage: the script prints nothing for it.

The request in flight when the database goes is a write that waits on a
provider row we hold locked from outside. It, and every request while
the database is away, must be a JSON 5xx carrying its request id, with
an error line naming that id. Once the database is back, reads and
writes (new connections: session settings, statements prepared again)
must succeed without touching httpd.

usage: check_db_outage.py API_URL BACKEND DB_URL ERROR_LOG
Prints "ok ..." / "not ok ..." lines.
"""

import http.client
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

from db_connect import connect

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def call(url, method='GET', path='/resource_providers', body=None,
         headers_out=None):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    headers = {'x-auth-token': 'admin',
               'openstack-api-version': 'placement latest'}
    if body is not None:
        headers['content-type'] = 'application/json'
        body = json.dumps(body)
    conn.request(method, u.path.rstrip('/') + path, body=body,
                 headers=headers)
    resp = conn.getresponse()
    text = resp.read().decode('utf-8', 'replace')
    if headers_out is not None:
        headers_out.update((k.lower(), v) for k, v in resp.getheaders())
    return resp.status, resp.getheader('x-openstack-request-id'), text


def check(name, cond, detail=''):
    print('%s database outage: %s%s' % ('ok' if cond else 'not ok', name,
                                        '' if cond else ': %s' % detail))


class PgOutage:
    """Close the database to connections and end the open ones."""

    def __init__(self, db_url):
        u = urllib.parse.urlsplit(db_url)
        self.dbname = u.path.lstrip('/')
        self.admin = ('host=%s port=%s user=%s password=%s dbname=postgres'
                      % (u.hostname, u.port, u.username, u.password))

    def switch(self, allow):
        import psycopg2
        conn = psycopg2.connect(self.admin)
        conn.autocommit = True
        cur = conn.cursor()
        cur.execute('ALTER DATABASE "%s" ALLOW_CONNECTIONS %s'
                    % (self.dbname, 'true' if allow else 'false'))
        if not allow:
            cur.execute('SELECT pg_terminate_backend(pid) FROM '
                        'pg_stat_activity WHERE datname = %s '
                        'AND pid <> pg_backend_pid()', (self.dbname,))
        conn.close()

    def down(self):
        self.switch(False)

    def up(self):
        self.switch(True)


class MariaDBKill:
    """SIGKILL our private mariadbd, then start it again."""

    def __init__(self, db_url):
        self.dir = os.environ.get('MYSQL_DIR', '')
        port = urllib.parse.urlsplit(db_url).port
        try:
            with open(os.path.join(self.dir, 'port')) as f:
                ours = int(f.read()) == port
        except (OSError, ValueError):
            ours = False
        self.usable = bool(self.dir) and ours

    def lib(self, fn):
        subprocess.run(['bash', '-c', '. "$0/scripts/lib-db.sh" && %s "$1"'
                        % fn, REPO, self.dir], check=True,
                       stdout=subprocess.DEVNULL)

    def down(self):
        self.lib('mysql_kill')

    def up(self):
        self.lib('mysql_restart')


def make_provider(url, failures=None):
    """A provider with 64 VCPU: its uuid, or None (the failed answer
    added to failures)."""
    answer = call(url, 'POST', '/resource_providers',
                  {'name': 'outage-%s' % uuid.uuid4().hex[:8]})
    if answer[0] == 200:
        rp = json.loads(answer[2])
        answer = call(url, 'PUT', '/resource_providers/%s/inventories'
                      % rp['uuid'],
                      {'resource_provider_generation': rp['generation'],
                       'inventories': {'VCPU': {'total': 64}}})
        if answer[0] == 200:
            return rp['uuid']
    if failures is not None:
        failures.append(answer)
    return None


def claim(url, rp):
    return call(url, 'PUT', '/allocations/%s' % uuid.uuid4(),
                {'allocations': {rp: {'resources': {'VCPU': 1}}},
                 'project_id': 'p', 'user_id': 'u',
                 'consumer_generation': None, 'consumer_type': 'INSTANCE'})


def is_json_5xx(answer):
    st, rid, text = answer
    try:
        return st >= 500 and json.loads(text)['errors'][0]['request_id'] == rid
    except (ValueError, KeyError, IndexError, TypeError):
        return False


def main():
    url, backend, db_url, log = sys.argv[1:5]
    if backend == 'pgsql':
        outage = PgOutage(db_url)
    elif backend == 'mysql':
        outage = MariaDBKill(db_url)
        if not outage.usable:
            check('a private MariaDB to kill (MYSQL_DIR, its port file)',
                  False, 'MYSQL_DIR=%r does not serve %s' % (outage.dir,
                                                            db_url))
            return
    else:
        return
    st, _, _ = call(url)
    check('the server answers first', st == 200, st)
    rp = make_provider(url)
    check('a provider to write to', rp is not None)
    # many requests at once: the server's pools then keep connections that
    # no request meanwhile will touch, to be used again after the outage
    crowd = [threading.Thread(target=lambda: [call(url) for _ in range(3)])
             for _ in range(12)]
    for t in crowd:
        t.start()
    for t in crowd:
        t.join(60)
    # the test servers flush InnoDB's log once a second: let it reach disk
    time.sleep(1.2)

    holder = connect(db_url)
    cur = holder.cursor()
    cur.execute('SELECT generation FROM resource_providers WHERE uuid = %s '
                'FOR UPDATE', (rp,))
    inflight = []
    writer = threading.Thread(target=lambda: inflight.append(claim(url, rp)))
    writer.start()
    time.sleep(0.5)
    outage.down()
    try:
        writer.join(60)
        statuses = [call(url) for _ in range(3)]
        fault_headers = {}
        statuses.append(call(url, headers_out=fault_headers))
    finally:
        outage.up()
        try:
            holder.close()
        except Exception:       # its server went away under it
            pass
    check('the write in flight is a JSON 5xx with its request id',
          len(inflight) == 1 and is_json_5xx(inflight[0]),
          inflight[0][:2] + (inflight[0][2][:200],) if inflight else 'none')
    bad = [s[:2] for s in statuses if s[0] < 500]
    check('every request meanwhile is a 5xx', not bad, bad)
    check('each 5xx is a JSON error with its request id',
          all(is_json_5xx(s) for s in statuses), statuses[0][2][:200])
    # upstream's 5xx come from its FaultWrapper, outside the microversion
    # middleware: neither the version header nor Vary
    check('a 5xx carries no version header and no Vary',
          'openstack-api-version' not in fault_headers
          and 'vary' not in fault_headers, fault_headers)
    time.sleep(0.5)
    with open(log, errors='replace') as f:
        text = f.read()
    unlogged = [rid for _, rid, _ in inflight + statuses
                if not any(rid in ln and ':error]' in ln
                           for ln in text.splitlines())]
    check('each 5xx has an error line with its request id', not unlogged,
          unlogged)
    for _ in range(60):
        st, _, _ = call(url)
        if st == 200:
            break
        time.sleep(0.5)
    check('the service recovers by itself (reads)', st == 200, st)
    # writes from many threads at once, so that every connection the
    # server kept is used again. A kept connection the driver renewed by
    # itself (a new session under the old handle) fails its first
    # statement once, and is set up again on its next use: so at most
    # one failure per kept connection, then every write succeeds.
    # (one provider per writer: no generation conflicts among them)
    failures, answers, rps = [], [], []
    deadline = time.time() + 60
    while time.time() < deadline and len(failures) <= 32:
        if len(rps) < 8:
            rp2 = make_provider(url, failures)
            if rp2 is not None:
                rps.append(rp2)
            continue
        answers = []
        writers = [threading.Thread(target=lambda rp=rp: answers.extend(
            claim(url, rp) for _ in range(3))) for rp in rps]
        for w in writers:
            w.start()
        for w in writers:
            w.join(60)
        failures += [a for a in answers if a[0] != 204]
        if len(answers) == 24 and all(a[0] == 204 for a in answers):
            break
    check('the service recovers by itself (a round of 24 writes, 8 at a '
          'time, all 204)', len(answers) == 24 and all(
              a[0] == 204 for a in answers), [a[0] for a in answers])
    check('at most one failure per kept connection meanwhile (%d), each a '
          'JSON 5xx' % len(failures), len(failures) <= 32 and all(
              is_json_5xx(a) for a in failures),
          [(a[0], a[2][:160]) for a in failures][:3])
    with open(log, errors='replace') as f:
        check('no httpd child crashed', 'exit signal' not in f.read())


if __name__ == '__main__':
    main()
