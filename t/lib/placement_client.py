"""A small client of the Placement API for the t/lib check scripts: one
kept-alive connection, noauth2's admin, JSON in and out; and the "ok" /
"not ok" lines t/run-api counts."""

import http.client
import json
import urllib.parse
import urllib.request

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'openstack-api-version': 'placement 1.39',
           'content-type': 'application/json'}


class Api:
    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        self.prefix = u.path.rstrip('/')
        self.conn = http.client.HTTPConnection(u.hostname, u.port,
                                               timeout=120)

    def call(self, method, path, body=None, mv=None):
        """(status, decoded JSON body or None); mv: another microversion
        than 1.39 for this request"""
        data = json.dumps(body) if body is not None else None
        try:
            resp = self.send(method, path, data, mv)
        except (http.client.RemoteDisconnected, ConnectionResetError,
                BrokenPipeError):
            # httpd closed the kept-alive connection while it was idle
            # (KeepAliveTimeout: reading a large answer on a loaded host
            # takes longer), before reading this request: send it again
            # on a new one
            self.conn.close()
            resp = self.send(method, path, data, mv)
        text = resp.read().decode('utf-8')
        return resp.status, json.loads(text) if text else None

    def send(self, method, path, data, mv=None):
        headers = HEADERS
        if mv:
            headers = dict(HEADERS, **{'openstack-api-version':
                                       'placement ' + mv})
        self.conn.request(method, self.prefix + path, body=data,
                          headers=headers)
        return self.conn.getresponse()


def check(name, cond, detail=''):
    print('%s %s%s' % ('ok' if cond else 'not ok', name,
                       '' if cond else ': ' + str(detail)[:300]))


def counters(metrics_url):
    """{name: value} of the unlabelled samples of the module's /metrics"""
    text = urllib.request.urlopen(metrics_url, timeout=10).read().decode()
    out = {}
    for line in text.splitlines():
        if line and not line.startswith('#') and '{' not in line:
            name, value = line.split()
            out[name] = float(value)
    return out
