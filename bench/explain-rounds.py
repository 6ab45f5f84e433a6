#!/usr/bin/env python3
"""What PostgreSQL itself spends executing statements, compared in turn.

    bench/explain-rounds.py DB_URL ROUNDS FILE.sql...

Runs EXPLAIN (ANALYZE, TIMING OFF) of each file's statement, one file
after the other, ROUNDS times, in one psql session (so every statement
after the first is planned with warm caches), and prints the median and
the smallest "Execution Time" of each. Taking the files in turn puts the
host's drift (a third from one minute to the next here) on all of them
alike; the smallest value is what the statement costs in a quiet moment.
Execution only: no planning, no sending of rows (which psql would time
along with its own work).

To get the text mod_placement runs for a request: set
log_min_duration_statement = 0 on the server (ALTER SYSTEM, then
SELECT pg_reload_conf()), send the request once, and take the statement
of the "execute pl_cached_N" line of the server's log.
"""
import os
import re
import statistics
import subprocess
import sys
import urllib.parse


def psql_args(url):
    u = urllib.parse.urlparse(url)
    return (['psql', '-X', '-q', '-h', u.hostname or '127.0.0.1',
             '-p', str(u.port or 5432), '-U', u.username or 'placement',
             u.path.lstrip('/')],
            u.password or '')


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    url, rounds, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    statements = [open(f).read().strip().rstrip(';') for f in files]
    script = "\n".join(
        "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) %s;" % s
        for _ in range(rounds) for s in statements)
    args, password = psql_args(url)
    out = subprocess.run(args, input=script, capture_output=True, text=True,
                         env=dict(os.environ, PGPASSWORD=password),
                         check=True).stdout
    times = [float(t) for t in
             re.findall(r'Execution Time: ([0-9.]+) ms', out)]
    if len(times) != rounds * len(files):
        sys.exit("explain-rounds: %d timings for %d statements"
                 % (len(times), rounds * len(files)))
    for i, name in enumerate(files):
        mine = times[i::len(files)]
        print("%-32s median %.3f ms  min %.3f ms  (%d runs)"
              % (name, statistics.median(mine), min(mine), len(mine)))


if __name__ == '__main__':
    main()
