#!/usr/bin/python3
"""Each database connection keeps the texts it ran last prepared (64 of
them, each from its second run), a new text taking the place of the one
run longest ago: many request shapes, more than a connection keeps,
answer right the first time and again (a statement dropped and its name
taken again by another text), and a shape asked often stays prepared
however many others come.

usage: check_statement_cache.py API_URL BACKEND DB_URL
The server runs with one database connection per child and one
keep-alive client connection (so one child, one database session,
answers everything). MariaDB counts prepares, executions and closes
server-wide: there the check also sees the statements closed to make
room, and the frequent shape, first asked once the connection kept 64
others, run prepared at the end without being prepared again. Prints "ok ..." /
"not ok ..." lines.
"""

import sys

from placement_client import Api, check
from db_connect import connect_any as connect

RP = 'c1c1c1c1-0000-4000-8000-000000000001'
SHAPES = 200  # distinct texts, three times what a connection keeps
HOT = 'resources=VCPU:1,MEMORY_MB:64'
HOT_EVERY = 8


def mariadb_counts(db_url):
    conn, _ = connect(db_url)
    cur = conn.cursor()
    cur.execute("SHOW GLOBAL STATUS WHERE Variable_name IN "
                "('Com_stmt_prepare', 'Com_stmt_close', 'Com_stmt_execute')")
    counts = {name: int(value) for name, value in cur.fetchall()}
    conn.close()
    return counts


def ask(api, query):
    return api.call('GET', '/allocation_candidates?' + query)


def one_pass(api):
    """(query, status, body) of every shape, the frequent one between."""
    out = []
    for i in range(1, SHAPES + 1):
        query = 'resources=VCPU:%d' % i
        out.append((query,) + ask(api, query))
        if i > SHAPES // 2 and i % HOT_EVERY == 0:  # once the cache is full
            out.append((HOT,) + ask(api, HOT))
    return out


def right(query, status, body):
    if status != 200 or len(body['allocation_requests']) != 1:
        return False
    resources = body['allocation_requests'][0]['allocations'][RP]['resources']
    wanted = dict(part.split(':') for part in
                  query[len('resources='):].split(','))
    return resources == {rc: int(n) for rc, n in wanted.items()}


def main():
    url, backend, db_url = sys.argv[1:4]
    api = Api(url)
    st, _ = api.call('POST', '/resource_providers',
                     {'name': 'statement-cache', 'uuid': RP})
    check('a provider made', st == 200, st)
    st, _ = api.call('PUT', '/resource_providers/%s/inventories' % RP, {
        'resource_provider_generation': 0,
        'inventories': {'VCPU': {'total': 1000},
                        'MEMORY_MB': {'total': 4096}}})
    check('its inventory set', st == 200, st)

    before = mariadb_counts(db_url) if backend == 'mysql' else None
    first = one_pass(api)
    bad = [a[:2] for a in first if not right(*a)]
    check('%d shapes answer right the first time' % SHAPES, not bad,
          'wrong: %d, first: %s' % (len(bad), bad[:1]))
    second = one_pass(api)
    check('and the same again, their statements made anew',
          second == first,
          [a[:2] for a, b in zip(second, first) if a != b][:2])
    if before is None:
        return
    after = mariadb_counts(db_url)
    closed = after['Com_stmt_close'] - before['Com_stmt_close']
    # each shape is kept at its second run (pass two), unless another
    # took its slot of first runs meanwhile (a few dozen of 200)
    check('MariaDB: statements closed to make room', closed >= SHAPES // 4,
          'closed %d' % closed)
    statuses = [ask(api, HOT)[0] for _ in range(3)]
    again = mariadb_counts(db_url)
    prepared = again['Com_stmt_prepare'] - after['Com_stmt_prepare']
    executed = again['Com_stmt_execute'] - after['Com_stmt_execute']
    check('MariaDB: the frequent shape, first asked once the cache was '
          'full, stays prepared', statuses == [200] * 3 and prepared == 0 and
          executed >= 3, 'statuses %s, prepares %d, executions %d' % (
              statuses, prepared, executed))


if __name__ == '__main__':
    main()
