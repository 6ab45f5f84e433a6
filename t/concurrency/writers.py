#!/usr/bin/python3
"""Concurrent allocation writers against two mod_placement instances that
share one database, then a check of the database itself.

    writers.py --url URL1 --url URL2 --db DBURL [--threads N] [--ops N]
               [--seconds S] [--log FILE ...]
               [--kill-pidfile FILE --kills N [--kill-interval S]]
               [--end-sessions N [--kill-interval S]]
               [--restart-cmd CMD --restarts N [--kill-interval S]]
               [--new-names]

DBURL: postgresql://user:pass@host:port/db or mysql://user:pass@host:port/db.
Prints figures and "CHECK ok|FAIL <name>: <detail>" lines; exit 1 if any
check failed. Python stdlib (http.client, threading) plus psycopg2/pymysql
for the final read of the database.

With --kill-pidfile (the PidFile of one httpd instance), a killer thread
SIGKILLs one child process of that instance's parent (children found
through /proc/<pid>/stat, never by name) every --kill-interval seconds,
--kills times, while the writers run; the writers stop shortly after the
last kill. A request whose connection is cut has an unknown outcome: its
consumer must then hold either exactly what was sent or nothing. Only the
providers this run created are checked, so runs can share a database.

With --end-sessions N, an ender thread ends every session of the database
from outside (PostgreSQL pg_terminate_backend, MariaDB KILL: a failover,
a proxy cutting connections) N times, every --kill-interval seconds. A
request whose session died under it may answer 500, and must be
explained: an error line of its request id names the lost session; a
claim so answered holds all it asked or nothing (its COMMIT may have got
no answer). No child may crash.

With --restart-cmd CMD, CMD (a shell command: the database restarted)
runs --restarts times, every --kill-interval seconds, with the same
checks: a 500 must be one of the outage, never a deadlock. --new-names:
the claims' projects and users change twice a second (new consumers of
new projects, as after a restart every project is new to the cache).
"""
import argparse
import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'lib'))
from db_connect import end_sessions  # noqa: E402

PROVIDERS = 3
INVENTORY = {'VCPU': {'total': 8, 'max_unit': 4},
             'MEMORY_MB': {'total': 2048, 'max_unit': 1024,
                           'step_size': 128}}


class Cut(Exception):
    """The connection broke after the request may have reached httpd."""


class Client:
    def __init__(self, url, resend=True):
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.prefix = u.path.rstrip('/')
        self.conn = None
        # Resending is safe only when no httpd process dies mid-request:
        # then a broken connection is a keep-alive one httpd closed before
        # reading the request. With kills, it may have been processed.
        self.resend = resend

    def call(self, method, path, body=None, mv='1.39'):
        headers = {'x-auth-token': 'admin',
                   'openstack-api-version': 'placement ' + mv,
                   'accept': 'application/json'}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers['content-type'] = 'application/json'
        for attempt in range(2):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection(
                        self.host, self.port, timeout=60)
                self.conn.request(method, self.prefix + path, data, headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                return resp.status, (json.loads(raw) if raw else None)
            except (http.client.HTTPException, OSError):
                self.conn = None
                if attempt or not self.resend:
                    raise Cut()
        return None, None


def setup(url):
    c = Client(url)
    rps = []
    for i in range(PROVIDERS):
        st, rp = c.call('POST', '/resource_providers',
                        {'name': 'conc-%d-%s' % (i, uuid.uuid4().hex[:6])},
                        mv='1.20')
        assert st == 200, (st, rp)
        st, inv = c.call('PUT', '/resource_providers/%s/inventories'
                         % rp['uuid'],
                         {'resource_provider_generation': rp['generation'],
                          'inventories': INVENTORY})
        assert st == 200, (st, inv)
        rps.append(rp['uuid'])
    return rps


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.claims = {}      # consumer -> {(rp, rc): amount}
        self.outcome = {}     # consumer -> 'held' | 'refused' | 'released'
        self.errors = []

    def count(self, key):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + 1


def writer(idx, urls, rps, stats, ops, deadline, seed, stop, resend):
    rnd = random.Random(seed)
    clients = [Client(u, resend) for u in urls]
    held = []
    for n in range(ops):
        if time.time() > deadline or stop.is_set():
            break
        c = clients[(idx + n) % len(clients)]
        if held and rnd.random() < 0.4:
            consumer = held.pop(rnd.randrange(len(held)))
            try:
                st, body = c.call('DELETE', '/allocations/' + consumer)
            except Cut:
                stats.count('release cut')
                with stats.lock:
                    stats.outcome[consumer] = 'unknown'
                continue
            stats.count('release %s' % st)
            if st == 204:
                with stats.lock:
                    stats.outcome[consumer] = 'released'
            elif st == 500 and stats.ending:
                with stats.lock:
                    stats.outcome[consumer] = 'unknown'
                    stats.lost.append(body)
            else:
                stats.errors.append(('release', st, body))
            continue
        consumer = str(uuid.uuid4())
        allocs = {}
        for rp in rnd.sample(rps, rnd.choice((1, 1, 2))):
            allocs[rp] = {'resources': {
                'VCPU': rnd.randint(1, 3),
                'MEMORY_MB': 128 * rnd.randint(1, 4)}}
        want = {(rp, rc): amt for rp, a in allocs.items()
                for rc, amt in a['resources'].items()}
        with stats.lock:
            stats.claims[consumer] = want
        project, user = 'proj', 'user%d' % (idx % 3)
        if stats.new_names:
            now = int(time.time() * 2)
            project, user = 'proj-%d' % now, 'user%d-%d' % (idx % 3, now)
        if rnd.random() < 0.25:
            body = {consumer: {'allocations': allocs, 'project_id': project,
                               'user_id': user,
                               'consumer_generation': None,
                               'consumer_type': 'INSTANCE'}}
            method, path, kind = 'POST', '/allocations', 'post'
        else:
            body = {'allocations': allocs, 'project_id': project,
                    'user_id': user,
                    'consumer_generation': None, 'consumer_type': 'INSTANCE'}
            method, path, kind = 'PUT', '/allocations/' + consumer, 'put'
        stats.count('%s requests' % kind)
        try:
            st, resp = c.call(method, path, body)
        except Cut:
            stats.count('claim cut')
            with stats.lock:
                stats.outcome[consumer] = 'unknown'
            continue
        if st == 409:
            detail = resp['errors'][0]['detail']
            why = ('capacity' if 'exceed the capacity' in detail else
                   'concurrent' if 'changed while' in detail else 'other')
            stats.count('claim 409 %s' % why)
        else:
            stats.count('claim %s' % st)
        with stats.lock:
            if st == 204:
                stats.outcome[consumer] = 'held'
                held.append(consumer)
            elif st == 409:
                stats.outcome[consumer] = 'refused'
            elif st == 500 and stats.ending:
                # its session ended under it: explained in check()
                stats.outcome[consumer] = 'unknown'
                stats.lost.append(resp)
            else:
                stats.outcome[consumer] = 'error'
                stats.errors.append((kind, st, resp))


def db_connect(dburl):
    u = urllib.parse.urlsplit(dburl)
    if u.scheme.startswith('postgres'):
        import psycopg2
        return psycopg2.connect(host=u.hostname, port=u.port,
                                user=u.username, password=u.password,
                                dbname=u.path.lstrip('/'))
    import pymysql
    return pymysql.connect(host=u.hostname, port=u.port, user=u.username,
                           password=u.password, database=u.path.lstrip('/'))


def children_of(ppid):
    """Pids of the live processes whose parent is ppid (from /proc)."""
    kids = []
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % name) as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces, split after ')'
        fields = stat[stat.rindex(')') + 2:].split()
        if fields[0] != 'Z' and int(fields[1]) == ppid:
            kids.append(int(name))
    return kids


def repeat(times, interval, stop, action, linger=0.5):
    """action() times times, interval seconds apart and before the first,
    until it says False; then the writers stop linger seconds after."""
    try:
        time.sleep(interval)
        for _ in range(times):
            if action() is False:
                break
            time.sleep(interval)
    finally:
        time.sleep(linger)
        stop.set()


def kill_a_child(pidfile, stats, rnd):
    """SIGKILL a child of the httpd whose parent pid is in pidfile."""
    with open(pidfile) as f:
        parent = int(f.read().split()[0])
    kids = []
    for _ in range(100):     # the parent respawns within ~1 s
        kids = [k for k in children_of(parent) if k not in stats.killed]
        if kids:
            break
        time.sleep(0.05)
    if not kids:
        stats.errors.append(('kill', 'no child of %d' % parent, ''))
        return False
    pid = rnd.choice(kids)
    os.kill(pid, signal.SIGKILL)
    with stats.lock:
        stats.killed.append(pid)
    return True


def restart_database(cmd, stats):
    """The database restarted, by the caller's command."""
    rc = subprocess.run(cmd, shell=True).returncode
    with stats.lock:
        stats.ended.append('restart:%d' % rc)
    return rc == 0


def end_all_sessions(dburl, stats):
    """End every session of the database (a failover, a proxy's cut)."""
    n = end_sessions(dburl)
    with stats.lock:
        stats.ended.append(n)


SESSION_LOST = re.compile(r'terminating connection|server closed the '
                          r'connection|no connection to the server|could '
                          r'not (send|receive) data|Lost connection|gone '
                          r'away|Database connection unavailable|Can.t '
                          r'connect|connection to the server was lost|'
                          r'database system is (shutting down|starting up)|'
                          # a Galera node rejoining: up, not yet synced
                          r'WSREP has not yet prepared node')


def read_logs(logs, offsets):
    """The lines of each log written since offsets[log]."""
    lines = []
    for log in logs:
        try:
            with open(log, 'rb') as f:
                f.seek(offsets.get(log, 0))
                lines += f.read().decode('utf-8', 'replace').splitlines()
        except OSError:
            pass
    return lines


def check(dburl, rps, stats, logs, offsets, kill_pidfile):
    killing = bool(kill_pidfile)
    results = []
    lines = read_logs(logs, offsets)

    def ok(name, cond, detail=''):
        results.append(cond)
        print('CHECK %s %s%s' % ('ok' if cond else 'FAIL', name,
                                 (': ' + detail) if detail else ''))

    db = db_connect(dburl)
    cur = db.cursor()
    cur.execute("SELECT rp.uuid, rc.name, i.total, i.reserved, "
                "i.allocation_ratio, COALESCE((SELECT SUM(a.used) "
                "FROM allocations a WHERE a.resource_provider_id = rp.id "
                "AND a.resource_class_id = i.resource_class_id), 0) "
                "FROM inventories i JOIN resource_providers rp "
                "ON rp.id = i.resource_provider_id JOIN resource_classes rc "
                "ON rc.id = i.resource_class_id")
    over = []
    for rp, rc, total, reserved, ratio, used in cur.fetchall():
        cap = (total - reserved) * ratio
        if rp not in rps:
            continue
        print('usage %s %-9s %5d / %g' % (rp[:8], rc, used, cap))
        if used > cap:
            over.append('%s %s %s > %s' % (rp, rc, used, cap))
    ok('no provider usage above capacity', not over, '; '.join(over))

    cur.execute("SELECT consumer_id, resource_provider_id, rp.uuid, rc.name, "
                "used FROM allocations a JOIN resource_providers rp "
                "ON rp.id = a.resource_provider_id JOIN resource_classes rc "
                "ON rc.id = a.resource_class_id")
    rows = {}
    for consumer, _rpid, rp, rc, used in cur.fetchall():
        if rp in rps:
            rows.setdefault(consumer, []).append(((rp, rc), used))
    cur.execute("SELECT uuid FROM consumers")
    consumer_rows = set(r[0] for r in cur.fetchall())
    db.close()

    def exactly(consumer, have):
        want = stats.claims[consumer]
        keys = [k for k, _ in have]
        return (sorted(keys) == sorted(want) and len(set(keys)) == len(keys)
                and all(want[k] == v for k, v in have)
                and consumer in consumer_rows)

    bad_held, bad_refused, bad_released, partial = [], [], [], []
    unknown_held = unknown_gone = empty_consumers = 0
    for consumer, outcome in stats.outcome.items():
        have = rows.get(consumer, [])
        if outcome == 'held':
            if not exactly(consumer, have):
                bad_held.append(consumer)
        elif outcome == 'refused':
            if have or consumer in consumer_rows:
                bad_refused.append(consumer)
        elif outcome == 'released':
            if have or consumer in consumer_rows:
                bad_released.append(consumer)
        elif outcome == 'unknown':
            # cut by a kill: all that was sent, or nothing at all
            if not have:
                unknown_gone += 1
                # upstream too creates the consumer before the write
                # transaction; a kill in between leaves it, empty
                empty_consumers += consumer in consumer_rows
            elif exactly(consumer, have):
                unknown_held += 1
            else:
                partial.append(consumer)
    ok('every 204 claim present exactly once', not bad_held,
       ' '.join(bad_held[:5]))
    ok('every refused claim left nothing', not bad_refused,
       ' '.join(bad_refused[:5]))
    ok('every released claim left nothing', not bad_released,
       ' '.join(bad_released[:5]))
    stray = set(rows) - set(stats.outcome)
    ok('no allocation of an unknown consumer', not stray,
       ' '.join(list(stray)[:5]))
    ok('no unexpected answer (5xx, 400)', not stats.errors,
       repr(stats.errors[:3]))
    cut = sum(v for k, v in stats.counts.items() if k.endswith(' cut'))
    if stats.ending:
        ok('cut requests all-or-nothing (no partial allocation)',
           not partial, ' '.join(partial[:5]))
        unexplained = []
        for resp in stats.lost:
            rid = ((resp or {}).get('errors') or [{}])[0].get('request_id')
            said = [ln for ln in lines if rid and rid in ln]
            if not any(SESSION_LOST.search(ln) for ln in said):
                # the request id and what the log said of it, so that a
                # failure names the error it did not expect
                unexplained.append('%s [%s]' % (rid, ' | '.join(
                    ln.split('] ')[-1] for ln in said) or 'no log line'))
        ok('every 500 explained by a session lost under it or the '
           'database away (%d)' % len(stats.lost), not unexplained,
           '; '.join(unexplained[:5]))
        print('sessions ended: %s; 500s: %d (after: %d complete, %d absent)'
              % (' '.join(map(str, stats.ended)), len(stats.lost),
                 unknown_held, unknown_gone))
    crashes = []
    for line in lines:
        m = re.search(r'child pid (\d+) exit signal (.*)', line)
        if m and int(m.group(1)) not in stats.killed:
            crashes.append(m.group(0))
    if killing:
        ok('cut requests all-or-nothing (no partial allocation)',
           not partial, ' '.join(partial[:5]))
        # httpd does not log a child lost to SIGKILL: see instead that
        # every killed pid is gone (reaped) and the parent has children
        gone = 0
        for _ in range(60):
            gone = sum(1 for pid in stats.killed
                       if not os.path.exists('/proc/%d' % pid))
            if gone == len(stats.killed):
                break
            time.sleep(0.1)
        with open(kill_pidfile) as f:
            alive = children_of(int(f.read().split()[0]))
        ok('every kill took a live httpd child, instance still serving',
           len(stats.killed) > 0 and gone == len(stats.killed)
           and len(alive) > 0,
           '%d kills, %d reaped, %d children now' % (len(stats.killed),
                                                     gone, len(alive)))
        print('kills: %d (pids %s); cut requests: %d (after: %d complete, '
              '%d absent, %d of them with an empty consumer row)'
              % (len(stats.killed), ' '.join(map(str, stats.killed)), cut,
                 unknown_held, unknown_gone, empty_consumers))
    else:
        ok('no request cut', cut == 0, '%d cut' % cut)
    ok('no httpd child crash%s' % (' besides the kills' if killing else ''),
       not crashes, '; '.join(crashes[:3]))

    retries = deadlocks = 0
    for line in lines:
        m = re.search(r'retried: (\d+) generation conflicts, '
                      r'(\d+) deadlocks', line)
        if m:
            retries += int(m.group(1))
            deadlocks += int(m.group(2))
    print('server-side retries: %d generation conflicts, %d deadlocks'
          % (retries, deadlocks))
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--url', action='append', required=True)
    ap.add_argument('--db', required=True)
    ap.add_argument('--threads', type=int, default=16)
    ap.add_argument('--ops', type=int, default=60)
    ap.add_argument('--seconds', type=float, default=60)
    ap.add_argument('--log', action='append', default=[])
    ap.add_argument('--kill-pidfile')
    ap.add_argument('--kills', type=int, default=3)
    ap.add_argument('--kill-interval', type=float, default=0.7)
    ap.add_argument('--end-sessions', type=int, default=0)
    ap.add_argument('--restart-cmd')
    ap.add_argument('--restarts', type=int, default=1)
    ap.add_argument('--new-names', action='store_true')
    args = ap.parse_args()
    killing = bool(args.kill_pidfile)

    offsets = {}
    for log in args.log:
        try:
            offsets[log] = os.path.getsize(log)
        except OSError:
            offsets[log] = 0
    rps = setup(args.url[0])
    stats = Stats()
    stats.killed = []
    stats.ended, stats.lost = [], []
    stats.ending = args.end_sessions > 0 or bool(args.restart_cmd)
    stats.new_names = args.new_names
    stop = threading.Event()
    start = time.time()
    deadline = start + args.seconds
    threads = [threading.Thread(target=writer,
                                args=(i, args.url, rps, stats, args.ops,
                                      deadline, 1000 + i, stop, not killing))
               for i in range(args.threads)]
    if killing:
        rnd = random.Random(7)
        threads.append(threading.Thread(
            target=repeat, args=(args.kills, args.kill_interval, stop,
                                 lambda: kill_a_child(args.kill_pidfile,
                                                      stats, rnd))))
    if args.end_sessions > 0:
        threads.append(threading.Thread(
            target=repeat, args=(args.end_sessions, args.kill_interval, stop,
                                 lambda: end_all_sessions(args.db, stats))))
    if args.restart_cmd:
        threads.append(threading.Thread(
            target=repeat, args=(args.restarts, args.kill_interval, stop,
                                 lambda: restart_database(args.restart_cmd,
                                                          stats)),
            # the herd comes after the restart: let it come
            kwargs={'linger': 10}))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.time() - start
    claims = sum(v for k, v in stats.counts.items()
                 if k.startswith('claim'))
    print('writers: %d threads x up to %d ops over %d instances, %.1f s'
          % (args.threads, args.ops, len(args.url), wall))
    print('claims: %d' % claims)
    for k in sorted(stats.counts):
        print('  %-28s %d' % (k, stats.counts[k]))
    results = check(args.db, rps, stats, args.log, offsets,
                    args.kill_pidfile)
    failed = results.count(False)
    print('checks: %d passed, %d failed' % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
