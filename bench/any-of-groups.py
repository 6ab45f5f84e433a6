#!/usr/bin/python3
"""Time requests with many any-of trait groups (issue 23 item 3) and the
peak memory of the PostgreSQL backends that served them.

    bench/any-of-groups.py URL [--groups 100] [--concurrency 1]
        [--path /allocation_candidates] [--pg 'PORT DBNAME'] [--seed 1]

Each of CONCURRENCY requests (at once, one thread each) asks
resources=VCPU:1 (candidates only) and GROUPS required=in:A,B sets, A a
standard trait drawn at random (most on no provider), B one of
bench/load-sql.py's HW_CPU_X86_SSE42 / HW_CPU_X86_AVX2 (request i draws
from seed SEED + i), at microversion 1.39. A server behind httpd's
default LimitRequestLine (8190) takes about 150 groups: 200 need a
larger one. --pg 'PORT DB': the PostgreSQL on 127.0.0.1:PORT (user
placement, password placement, psql) whose backends of database DB are
watched: their peak RSS (VmHWM) is reset at the start (clear_refs) and
read from /proc (run it on the database's host, as root or the
database's user), and those that ran a statement during the run count.
Prints each request's time and status, then the backends' peak RSS,
largest and summed.
"""
import argparse
import json
import os
import random
import subprocess
import threading
import time
import urllib.error
import urllib.request

HDR = {'x-auth-token': 'admin', 'openstack-api-version': 'placement 1.39'}
COMMON = ['HW_CPU_X86_SSE42', 'HW_CPU_X86_AVX2']


def traits(url):
    req = urllib.request.Request(url.rstrip('/') + '/traits', headers=HDR)
    with urllib.request.urlopen(req, timeout=60) as r:
        return [t for t in json.load(r)['traits'] if not t.startswith('CUSTOM')]


def query(names, groups, seed, candidates):
    r = random.Random(seed)
    q = ['resources=VCPU:1'] if candidates else []
    q += ['required=in:%s,%s' % (r.choice(names), r.choice(COMMON))
          for _ in range(groups)]
    return '&'.join(q)


class Backends:
    """The PostgreSQL backends of a database and their peak RSS."""

    def __init__(self, spec):
        self.port, self.db = spec.split()
        self.start = self.sql('SELECT clock_timestamp()').strip()
        self.peak = {}
        for pid in self.pids():
            try:
                with open('/proc/%d/clear_refs' % pid, 'w') as f:
                    f.write('5')  # the peak RSS from now on
            except OSError:
                pass

    def sql(self, text):
        return subprocess.run(
            ['psql', '-X', '-At', '-h', '127.0.0.1', '-p', self.port, '-U',
             'placement', 'postgres', '-c', text],
            capture_output=True, text=True,
            env=dict(os.environ, PGPASSWORD='placement')).stdout

    def pids(self, since=None):
        cond = " AND query_start >= '%s'" % since if since else ''
        return {int(x) for x in self.sql(
            "SELECT pid FROM pg_stat_activity WHERE datname = '%s'%s"
            % (self.db, cond)).split()}

    def sample(self):
        for pid in self.pids():
            try:
                with open('/proc/%d/status' % pid) as f:
                    kb = [int(ln.split()[1]) for ln in f
                          if ln.startswith('VmHWM')]
            except OSError:
                continue
            self.peak[pid] = max([self.peak.get(pid, 0)] + kb)

    def used(self):
        """The peaks of the backends that ran a statement in the run."""
        ran = self.pids(self.start)
        return [kb for pid, kb in self.peak.items() if pid in ran]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('url')
    ap.add_argument('--groups', type=int, default=100)
    ap.add_argument('--concurrency', type=int, default=1)
    ap.add_argument('--path', default='/allocation_candidates')
    ap.add_argument('--pg')
    ap.add_argument('--seed', type=int, default=1)
    a = ap.parse_args()
    backends = Backends(a.pg) if a.pg else None
    names = traits(a.url)
    qs = [query(names, a.groups, a.seed + i,
                a.path == '/allocation_candidates')
          for i in range(a.concurrency)]
    done = threading.Event()
    results = [None] * a.concurrency

    def watch():
        while not done.is_set():
            backends.sample()
            time.sleep(0.2)

    def ask(i):
        start = time.monotonic()
        req = urllib.request.Request(
            '%s%s?%s' % (a.url.rstrip('/'), a.path, qs[i]), headers=HDR)
        try:
            with urllib.request.urlopen(req, timeout=900) as r:
                status, size = r.status, len(r.read())
        except urllib.error.HTTPError as e:
            status, size = e.code, len(e.read())
        results[i] = (time.monotonic() - start, status, size)

    watcher = threading.Thread(target=watch) if backends else None
    if watcher:
        watcher.start()
    threads = [threading.Thread(target=ask, args=(i,))
               for i in range(a.concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    if watcher:
        watcher.join()
        backends.sample()
    print('%s %d groups x %d at once: %s s; statuses %s' % (
        a.path, a.groups, a.concurrency,
        ' '.join('%.2f' % r[0] for r in sorted(results)),
        sorted({r[1] for r in results})))
    if backends:
        peak = backends.used()
        print('PostgreSQL backends %d: peak RSS largest %.0f MB, sum %.0f MB'
              % (len(peak), max(peak, default=0) / 1024, sum(peak) / 1024))


if __name__ == '__main__':
    main()
