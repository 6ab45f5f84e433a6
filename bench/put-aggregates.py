#!/usr/bin/python3
"""Time one PUT /resource_providers/{uuid}/aggregates of N new uuids, and
read the peak resident size (VmHWM) of the server's httpd children.

    bench/put-aggregates.py URL N [--match 'RUNDIR/httpd[.]conf']
        [--again] [--probe]

A new provider gets N new aggregate uuids in one PUT (microversion 1.19),
read back and compared with the set sent. --again PUTs a second list
(half the first, half new) to time the replacement too. --probe GETs /
resource_providers every 0.2 s while the PUT runs and reports the slowest
answer and any status but 200 (SQLite's write lock). --match picks the
httpd processes whose command line matches the regular expression (the
children of a server started with that configuration); the largest
VmHWM among them is printed. Serve a fresh httpd per run for a peak that
belongs to this request alone. Last line: JSON.
"""
import argparse
import http.client
import json
import os
import re
import sys
import threading
import time
import urllib.parse
import uuid

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'openstack-api-version': 'placement 1.39',
           'content-type': 'application/json'}


def call(url, method, path, body=None, timeout=3600):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    data = json.dumps(body) if body is not None else None
    conn.request(method, u.path.rstrip('/') + path, body=data,
                 headers=HEADERS)
    resp = conn.getresponse()
    text = resp.read()
    conn.close()
    return resp.status, json.loads(text) if text else None


def peak_rss_kb(match):
    """The largest VmHWM (kB) of the processes whose command line matches."""
    best = 0
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % pid, 'rb') as f:
                cmd = f.read().replace(b'\0', b' ').decode('utf-8', 'replace')
            if not re.search(match, cmd):
                continue
            with open('/proc/%s/status' % pid) as f:
                for ln in f:
                    if ln.startswith('VmHWM:'):
                        best = max(best, int(ln.split()[1]))
        except OSError:
            continue
    return best


class Probe(threading.Thread):
    """GETs a listing until stopped: the slowest answer, statuses not 200."""

    def __init__(self, url):
        super().__init__(daemon=True)
        self.url, self.stop, self.worst, self.bad, self.n = url, False, 0.0, {}, 0

    def run(self):
        while not self.stop:
            t = time.monotonic()
            try:
                st, _ = call(self.url, 'GET', '/resource_providers', timeout=60)
            except OSError as e:
                st = repr(e)
            self.worst = max(self.worst, time.monotonic() - t)
            self.n += 1
            if st != 200:
                self.bad[str(st)] = self.bad.get(str(st), 0) + 1
            time.sleep(0.2)


def put(url, rp, gen, aggs, probe):
    p = Probe(url) if probe else None
    if p:
        p.start()
    t = time.monotonic()
    st, body = call(url, 'PUT', '/resource_providers/%s/aggregates' % rp,
                    {'resource_provider_generation': gen, 'aggregates': aggs})
    took = time.monotonic() - t
    if p:
        p.stop = True
        p.join()
    return st, body, took, p


def main():
    a = argparse.ArgumentParser()
    a.add_argument('url')
    a.add_argument('n', type=int)
    a.add_argument('--match', default=None)
    a.add_argument('--again', action='store_true')
    a.add_argument('--probe', action='store_true')
    o = a.parse_args()

    rp = str(uuid.uuid4())
    st, _ = call(o.url, 'POST', '/resource_providers',
                 {'name': 'agg-%s' % rp, 'uuid': rp})
    if st != 200:
        sys.exit('provider not created: %s' % st)
    aggs = [str(uuid.uuid4()) for _ in range(o.n)]
    res = {'n': o.n}
    st, body, took, p = put(o.url, rp, 0, aggs, o.probe)
    res.update(status=st, seconds=round(took, 3))
    if p:
        res.update(probe_gets=p.n, probe_worst_s=round(p.worst, 3),
                   probe_not_200=p.bad)
    st, body = call(o.url, 'GET', '/resource_providers/%s/aggregates' % rp)
    res['read_back_equal'] = st == 200 and set(body['aggregates']) == set(aggs)
    if o.again:
        aggs = aggs[:o.n // 2] + [str(uuid.uuid4()) for _ in range(o.n // 2)]
        st, body, took, p = put(o.url, rp, 1, aggs, o.probe)
        res.update(again_status=st, again_seconds=round(took, 3))
        st, body = call(o.url, 'GET',
                        '/resource_providers/%s/aggregates' % rp)
        res['again_read_back_equal'] = (st == 200 and
                                        set(body['aggregates']) == set(aggs))
    if o.match:
        res['peak_rss_kb'] = peak_rss_kb(o.match)
    print('%d uuids: PUT %s in %.2f s%s, peak child RSS %s kB' % (
        o.n, res['status'], res['seconds'],
        ', again %s in %.2f s' % (res['again_status'], res['again_seconds'])
        if o.again else '', res.get('peak_rss_kb', '?')))
    print(json.dumps(res, sort_keys=True))


if __name__ == '__main__':
    main()
