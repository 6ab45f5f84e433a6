#!/usr/bin/python3
"""The plan of every SELECT a request sent to MariaDB, with the rows it
actually read: ANALYZE of each statement of a general log, in order,
each text once.

    bench/explain-general-log.py GENERAL_LOG PORT DB   (user/password placement)

To get the log: SET GLOBAL general_log_file = '/tmp/x.log', SET GLOBAL
general_log = 1 (as root, on the socket), send the request once, SET
GLOBAL general_log = 0. Statements the module prepares appear as Execute
lines, the candidate statements (texts with the ids written in) as Query
lines; both are taken. Columns to read: key (the index used; NULL on a
real table is a full scan), rows (the planner's estimate), r_rows (rows
read per loop). <subqueryN>/<derivedN> rows are the long IN lists, which
MariaDB turns into a table of values (in_predicate_conversion_threshold),
not tables of the database.
"""
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    log, port, db = sys.argv[1:4]
    statements = []
    for line in open(log):
        m = re.match(r'^(?:\d+ [\d:]+)?\s+\d+ (?:Query|Execute)\t(SELECT .*)$',
                     line.rstrip('\n'))
        if m and m.group(1) not in statements:
            statements.append(m.group(1))
    for s in statements:
        shown = s if len(s) < 400 else '%s ... (%d chars)' % (s[:400], len(s))
        print('== ' + shown, flush=True)
        out = subprocess.run(
            ['mariadb', '--no-defaults', '-h', '127.0.0.1', '-P', port,
             '-uplacement', '-pplacement', '-t', db, '-e', 'ANALYZE ' + s],
            capture_output=True, text=True)
        print(out.stdout + out.stderr, flush=True)


if __name__ == '__main__':
    main()
