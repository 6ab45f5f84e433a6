#!/usr/bin/python3
"""Whether consumer rows exist in the test database (issue 13: a write
that fails leaves no consumer behind, not even for a moment's retry).

usage: check_consumer_rows.py DB_URL absent|present NAME UUID...
Prints one "ok ..." / "not ok ..." line per uuid.
"""

import sys
import urllib.parse


def connect(db_url):
    u = urllib.parse.urlsplit(db_url)
    q = dict(urllib.parse.parse_qsl(u.query))
    scheme = u.scheme.split('+')[0]
    name = urllib.parse.unquote(u.path.lstrip('/'))
    user = urllib.parse.unquote(u.username or 'placement')
    password = urllib.parse.unquote(u.password or '')
    host = urllib.parse.unquote(u.hostname or '') or q.get('host')
    if scheme == 'sqlite':
        import sqlite3
        path = u.path[1:] if u.path.startswith('//') else u.path
        return sqlite3.connect(path), '?'
    if scheme in ('postgresql', 'postgres', 'pgsql'):
        import psycopg2
        return psycopg2.connect(dbname=name, user=user, password=password,
                                host=host or '127.0.0.1',
                                port=u.port or 5432), '%s'
    import pymysql
    if q.get('socket'):
        return pymysql.connect(unix_socket=q['socket'], user=user,
                               password=password, database=name), '%s'
    return pymysql.connect(host=host or '127.0.0.1', port=u.port or 3306,
                           user=user, password=password, database=name), '%s'


def main():
    db_url, want, name = sys.argv[1:4]
    conn, mark = connect(db_url)
    cur = conn.cursor()
    for uuid in sys.argv[4:]:
        cur.execute('SELECT COUNT(*) FROM consumers WHERE uuid = ' + mark,
                    (uuid,))
        n = cur.fetchone()[0]
        ok = (n == 0) if want == 'absent' else (n == 1)
        print('%s consumer rows: %s: %s %s%s' % (
            'ok' if ok else 'not ok', name, uuid, want,
            '' if ok else ' (%d rows)' % n))
    conn.close()


if __name__ == '__main__':
    main()
