#!/usr/bin/python3
"""Setting tens of thousands of aggregates costs linear time, and reads
go on meanwhile (issue 23: the write compared every uuid with every
other, 100,000 took 27 s on SQLite and 108 s on PostgreSQL, and on
SQLite every other request waited for its lock or failed 500 "database
is locked").

usage: check_big_aggregates.py API_URL [N]
A provider gets N new aggregates in one PUT (default 30,000), then a
list that keeps half of them and adds N/2 new ones. Each PUT must answer
200 within BOUND seconds (the quadratic write took over 100 s for
20,000 beside a reader, and 4 s without one; the linear one about half
a second), and read back the set sent, its generation bumped. While
they run, another connection lists providers every 0.1 s: every answer
must be a 200 within BOUND seconds. Prints "ok ..." / "not ok ..." lines.
"""

import http.client
import json
import sys
import threading
import time
import urllib.parse
import uuid

from placement_client import HEADERS, Api, check

BOUND = 8.0


class Reader(threading.Thread):
    """Lists providers on its own connection until stopped."""

    def __init__(self, url):
        super().__init__(daemon=True)
        u = urllib.parse.urlsplit(url)
        self.host, self.port = u.hostname, u.port
        self.path = u.path.rstrip('/') + '/resource_providers'
        self.stopped = threading.Event()
        self.answers = []          # (status or error text, seconds)

    def run(self):
        while not self.stopped.is_set():
            conn = http.client.HTTPConnection(self.host, self.port,
                                              timeout=60)
            start = time.monotonic()
            try:
                conn.request('GET', self.path, headers=HEADERS)
                resp = conn.getresponse()
                resp.read()
                status = resp.status
            except (OSError, http.client.HTTPException) as e:
                status = repr(e)
            finally:
                conn.close()
            self.answers.append((status, time.monotonic() - start))
            self.stopped.wait(0.1)


def put(api, rp, generation, aggregates):
    """(status, body, seconds) of one PUT of the set, at 1.19+."""
    start = time.monotonic()
    try:
        st, body = api.call('PUT', '/resource_providers/%s/aggregates' % rp,
                            {'resource_provider_generation': generation,
                             'aggregates': aggregates})
    except (OSError, http.client.HTTPException) as e:
        st, body = repr(e), None
    return st, body, time.monotonic() - start


def main():
    url = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 30000
    api = Api(url)
    api.conn.timeout = 600
    rp = str(uuid.uuid4())
    st, _ = api.call('POST', '/resource_providers',
                     {'name': 'many aggregates', 'uuid': rp})
    check('big aggregates: provider created', st == 200, st)

    first = [str(uuid.uuid4()) for _ in range(n)]
    second = first[::2] + [str(uuid.uuid4()) for _ in range(n - n // 2)]
    reader = Reader(url)
    reader.start()
    for label, generation, aggs in (('%d new' % n, 0, first),
                                    ('half kept, %d new' % (n - n // 2), 1,
                                     second)):
        st, body, took = put(api, rp, generation, aggs)
        if st != 200:
            api = Api(url)
        check('big aggregates: PUT %s answers 200 in %.2f s (bound %.0f s)'
              % (label, took, BOUND), st == 200 and took < BOUND,
              (st, str(body)[:200]))
        check('big aggregates: the answer echoes the list and generation %d'
              % (generation + 1),
              body is not None and body.get('aggregates') == aggs and
              body.get('resource_provider_generation') == generation + 1,
              str(body)[:200])
        st, body = api.call('GET', '/resource_providers/%s/aggregates' % rp)
        got = body.get('aggregates', []) if body else []
        check('big aggregates: the provider lists the set sent',
              st == 200 and len(got) == len(aggs) and set(got) == set(aggs),
              (st, len(got), len(set(got) ^ set(aggs))))
    reader.stopped.set()
    reader.join(70)
    answers = list(reader.answers)
    bad = [a for a in answers if a[0] != 200 or a[1] >= BOUND]
    check('big aggregates: %d listings meanwhile, each a 200 within %.0f s '
          '(slowest %.2f s)' % (len(answers), BOUND,
                                max([a[1] for a in answers] or [0])),
          len(answers) > 0 and not bad, json.dumps(bad[:5]))


if __name__ == '__main__':
    main()
