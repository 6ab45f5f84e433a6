"""A connection to the test database from a scripts/db-init.sh URL
(postgresql://... or mysql://...), for the t/lib check scripts that act
on the database from outside the server."""

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
