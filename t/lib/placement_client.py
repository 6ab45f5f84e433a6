"""A small client of the Placement API for the t/lib check scripts: one
kept-alive connection, noauth2's admin, JSON in and out; and the "ok" /
"not ok" lines t/run-api counts."""

import http.client
import json
import urllib.parse

HEADERS = {'x-auth-token': 'admin', 'accept': 'application/json',
           'openstack-api-version': 'placement 1.39',
           'content-type': 'application/json'}


class Api:
    def __init__(self, url):
        u = urllib.parse.urlsplit(url)
        self.prefix = u.path.rstrip('/')
        self.conn = http.client.HTTPConnection(u.hostname, u.port,
                                               timeout=120)

    def call(self, method, path, body=None):
        """(status, decoded JSON body or None)"""
        data = json.dumps(body) if body is not None else None
        self.conn.request(method, self.prefix + path, body=data,
                          headers=HEADERS)
        resp = self.conn.getresponse()
        text = resp.read().decode('utf-8')
        return resp.status, json.loads(text) if text else None


def check(name, cond, detail=''):
    print('%s %s%s' % ('ok' if cond else 'not ok', name,
                       '' if cond else ': ' + str(detail)[:300]))
