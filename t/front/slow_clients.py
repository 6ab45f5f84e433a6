#!/usr/bin/python3
"""Slow clients against a running server (issue 23 item 7): while N
connections each send a partial request header and then one byte every
few seconds (slowloris; a connection the server closes is opened again at
once, as an attacker would), an ordinary client asks GET / every few
seconds on a fresh connection and must get a 200 quickly every time.

usage: slow_clients.py URL [--slow N] [--every E] [--idle] [--wait D]
                           [--seconds S] [--max-wait W] [--give-up G]
                           [--source ADDR]

URL is the API's root (http://127.0.0.1:PORT/ or .../placement/). The N (default 200)
slow connections come from ADDR (default 127.0.0.2: another client than
the prober on 127.0.0.1, as an attacker would be), each dribbling a byte
every E seconds (default 2); with --idle they send nothing at all (they
wait in the kernel until httpd's deferred accept gives up, about 30 s,
then in httpd: use --wait 30). D seconds (default 1) after they are all
open, a probe every 3 s for S seconds (default 30): each must answer 200
within W seconds (default 2); one unanswered after G seconds (default 10)
is given up. Prints "ok ..." / "not ok ..." lines and a "# ..." line of
figures: the probes' times, how many slow connections were open at the
probes, how many were made and how many the server closed.
"""

import argparse
import asyncio
import time
import urllib.parse

HEADER_START = (b'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n'
                b'User-Agent: slow-client\r\n')
DRIBBLE = b'X-Slow: ' + b'a' * 4000  # never a whole line: no end of header


class Attack:
    def __init__(self, host, port, source, every, idle):
        self.host, self.port = host, port
        self.source, self.every = source, every
        self.idle = idle     # send nothing at all
        self.open = 0        # connections open now (written to, not closed)
        self.opened = 0      # connections made, in all
        self.closed = 0      # closed by the server (EOF, reset)
        self.failed = 0      # could not connect
        self.stop = False

    async def one(self):
        """One slow client, for as long as the attack lasts."""
        while not self.stop:
            try:
                reader, writer = await asyncio.open_connection(
                    self.host, self.port, local_addr=(self.source, 0))
            except OSError:
                self.failed += 1
                await asyncio.sleep(0.5)
                continue
            self.opened += 1
            self.open += 1
            try:
                if not self.idle:
                    writer.write(HEADER_START)
                    await writer.drain()
                i = 0
                while not self.stop:
                    # a byte, then wait; the server's close shows as EOF
                    try:
                        data = await asyncio.wait_for(reader.read(65536),
                                                      self.every)
                    except asyncio.TimeoutError:
                        if self.idle:
                            continue
                        writer.write(DRIBBLE[i % len(DRIBBLE):][:1])
                        await writer.drain()
                        i += 1
                        continue
                    if not data:
                        break
                    # an answer (a 408 or 400): the server is done with it
                    break
                if not self.stop:
                    self.closed += 1
            except (ConnectionError, OSError):
                if not self.stop:
                    self.closed += 1
            finally:
                self.open -= 1
                writer.close()


async def probe(host, port, path, give_up):
    """GET path on a fresh connection: (status or None, seconds)."""
    t0 = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port), give_up)
        writer.write(b'GET ' + path.encode() + b' HTTP/1.1\r\n'
                     b'Host: 127.0.0.1\r\n'
                     b'OpenStack-API-Version: placement latest\r\n'
                     b'Accept: application/json\r\nConnection: close\r\n\r\n')
        await writer.drain()
        data = await asyncio.wait_for(reader.read(),
                                      give_up - (time.monotonic() - t0))
        writer.close()
    except (asyncio.TimeoutError, OSError):
        return None, time.monotonic() - t0
    line = data.split(b'\r\n', 1)[0].split()
    status = int(line[1]) if len(line) > 1 and line[1].isdigit() else None
    return status, time.monotonic() - t0


def check(name, cond, detail=''):
    print('%s %s%s' % ('ok' if cond else 'not ok', name,
                       '' if cond else ': ' + detail))
    return cond


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('url')
    ap.add_argument('--slow', type=int, default=200)
    ap.add_argument('--seconds', type=float, default=30)
    ap.add_argument('--every', type=float, default=2)
    ap.add_argument('--max-wait', type=float, default=2)
    ap.add_argument('--give-up', type=float, default=10)
    ap.add_argument('--source', default='127.0.0.2')
    ap.add_argument('--idle', action='store_true')
    ap.add_argument('--wait', type=float, default=1)
    a = ap.parse_args()
    u = urllib.parse.urlsplit(a.url)
    host, port, path = u.hostname, u.port, u.path or '/'

    status, secs = await probe(host, port, path, a.give_up)
    check('GET / answers 200 before the attack (%.3f s)' % secs,
          status == 200, 'status %s' % status)

    attack = Attack(host, port, a.source, a.every, a.idle)
    tasks = [asyncio.create_task(attack.one()) for _ in range(a.slow)]
    for _ in range(100):  # every connection made and its first bytes sent
        if attack.opened >= a.slow:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(a.wait)
    check('%d slow connections open' % a.slow, attack.open >= a.slow * 0.95,
          'only %d open (%d failed to connect)' % (attack.open,
                                                    attack.failed))

    results = []
    t_end = time.monotonic() + a.seconds
    while time.monotonic() < t_end:
        held = attack.open
        status, secs = await probe(host, port, path, a.give_up)
        results.append((status, secs, held))
        await asyncio.sleep(max(0.0, 3 - secs))
    attack.stop = True
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

    times = sorted(s for _, s, _ in results)
    print('# %d probes during the attack: GET / in %.3f s at best, '
          '%.3f s median, %.3f s at worst; slow connections open at the '
          'probes %d..%d; %d made, %d closed by the server'
          % (len(results), times[0], times[len(times) // 2], times[-1],
             min(h for _, _, h in results), max(h for _, _, h in results),
             attack.opened, attack.closed))
    late = [(st, s) for st, s, _ in results if st != 200 or s > a.max_wait]
    check('GET / answered 200 within %g s at each of %d probes under %d '
          'slow connections' % (a.max_wait, len(results), a.slow),
          not late and len(results) >= 3,
          '%d of %d late or failed: %s' % (
              len(late), len(results),
              ', '.join('%s in %.1f s' % (st, s) for st, s in late[:6])))
    # the server cuts them all at once (a header timeout) and they come
    # back at once: a probe may fall in between, not most of them
    held = sorted(h for _, _, h in results)
    check('the slow connections stayed open during the probes',
          held[len(held) // 2] >= a.slow * 0.9,
          'a median of %d' % held[len(held) // 2])
    status, secs = await probe(host, port, path, a.give_up)
    check('GET / answers 200 after the attack (%.3f s)' % secs,
          status == 200, 'status %s' % status)


if __name__ == '__main__':
    asyncio.run(main())
