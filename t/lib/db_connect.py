"""A connection to the test database from a scripts/db-init.sh URL, for
the t/lib check scripts that act on the database from outside the server:
connect (postgresql://... or mysql://...) and connect_any (those, sqlite:
and MySQL's socket= form, with the parameter mark of the driver)."""

import urllib.parse


def connect(url, autocommit=False):
    u = urllib.parse.urlsplit(url)
    args = dict(host=u.hostname, port=u.port, user=u.username,
                password=u.password)
    if u.scheme.startswith('postgres'):
        import psycopg2
        conn = psycopg2.connect(dbname=u.path.lstrip('/'), **args)
        conn.autocommit = autocommit
        return conn
    import pymysql
    return pymysql.connect(database=u.path.lstrip('/'),
                           autocommit=autocommit, **args)


def connect_any(db_url):
    """(connection, parameter mark: '?' or '%s') for any backend's URL."""
    u = urllib.parse.urlsplit(db_url)
    q = dict(urllib.parse.parse_qsl(u.query))
    scheme = u.scheme.split('+')[0]
    name = urllib.parse.unquote(u.path.lstrip('/'))
    user = urllib.parse.unquote(u.username or 'placement')
    password = urllib.parse.unquote(u.password or '')
    host = urllib.parse.unquote(u.hostname or '') or q.get('host')
    if scheme == 'sqlite':
        import sqlite3
        # SQLAlchemy's rule, as every tool of the project reads it:
        # sqlite:////abs is /abs, sqlite:///rel is rel (current directory)
        path = u.path[1:]
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


def end_sessions(db_url):
    """End the other sessions of the test database from outside, as a
    failover or a proxy does (PostgreSQL: every one, pg_terminate_backend;
    MariaDB: the idle ones, KILL); how many there were."""
    conn, _ = connect_any(db_url)
    cur = conn.cursor()
    if db_url.startswith('postgres'):
        cur.execute('SELECT pg_terminate_backend(pid) FROM pg_stat_activity '
                    'WHERE datname = current_database() '
                    'AND pid <> pg_backend_pid()')
        n = len(cur.fetchall())
    else:
        # only the idle ones (a proxy's idle timeout): MariaDB 10.11.19
        # itself died of SIGSEGV once in about a thousand KILLs of a
        # session in the middle of a query (issue 35's runs)
        cur.execute('SELECT id FROM information_schema.processlist '
                    'WHERE db = DATABASE() AND id <> CONNECTION_ID() '
                    "AND command = 'Sleep'")
        ids = [row[0] for row in cur.fetchall()]
        for i in ids:
            try:
                cur.execute('KILL %d' % i)
            except Exception:   # gone meanwhile
                pass
        n = len(ids)
    conn.commit()
    conn.close()
    return n
