#!/usr/bin/python3
"""What a user of a freshly converted deployment checks, as ok / not ok
lines (t/deploy/run counts them).

usage: check_cloud.py ROOT_URL API_URL AUTH OLD_DEFAULTS [NAME]

ROOT_URL  the server's root (http://127.0.0.1:PORT)
API_URL   where the API is mounted (ROOT_URL, or ROOT_URL/placement)
AUTH      keystone | noauth2
OLD_DEFAULTS 1 when the file keeps the deprecated policy defaults
          ([oslo_policy] enforce_new_defaults = False), else 0
NAME      prefix of every line (default: the API URL)

Environment (keystone): KS_URL, KS_TOKEN_NOVA, KS_TOKEN_ADMIN,
KS_TOKEN_DEMO_READER, KS_SERVICE_PROJECT_ID, KS_DEMO_PROJECT_ID,
KS_NOVA_USER_ID (scripts/keystone-tool.py writes them).

The checks, in the order an operator would try a new deployment:
- the health check: GET of the mount point, no token, 200 with the
  version document (HAProxy's httpchk, Kubernetes probes, DevStack's wait);
- a request without a token is refused (401; in keystone mode the
  WWW-Authenticate header names the Keystone of the file);
- nova's calls, as the service user nova (role service) makes them: a
  compute node provider, its inventory and traits, allocation candidates,
  a claim, the usages it makes, a claim beyond capacity refused, the
  claim released;
- policy: a user with only the reader role may not write (403) but may
  read its own project's usages; the reshaper, a service-only API since
  placement 9.0.0, is refused to an admin under the new defaults and
  allowed when the file keeps the deprecated ones (then role:admin
  still passes, as oslo.policy ORs the deprecated rule in); nova may
  always reshape.
"""

import http.client
import json
import os
import sys
import urllib.parse
import uuid

MV = 'placement 1.39'


class Client:
    def __init__(self, api_url, headers):
        u = urllib.parse.urlsplit(api_url)
        self.host, self.port = u.hostname, u.port
        self.prefix = u.path.rstrip('/')
        self.headers = headers

    def call(self, method, path, body=None, mv=MV, extra=None):
        """(status, headers, decoded body or raw text)"""
        headers = {'accept': 'application/json'}
        if mv:
            headers['openstack-api-version'] = mv
        headers.update(self.headers)
        headers.update(extra or {})
        data = None
        if body is not None:
            data = json.dumps(body)
            headers['content-type'] = 'application/json'
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        try:
            conn.request(method, self.prefix + path, body=data,
                         headers=headers)
            resp = conn.getresponse()
            text = resp.read().decode('utf-8', 'replace')
        finally:
            conn.close()
        try:
            doc = json.loads(text) if text else None
        except ValueError:
            doc = text
        return resp.status, resp, doc


passed = failed = 0
PREFIX = ''


def check(name, cond, detail=''):
    global passed, failed
    if cond:
        passed += 1
        print('ok %s%s' % (PREFIX, name))
    else:
        failed += 1
        print('not ok %s%s' % (PREFIX, name))
        if detail:
            print('    ' + str(detail)[:600].replace('\n', '\n    '))
    sys.stdout.flush()


def identities(auth):
    """name -> (headers, project id) of nova, an admin, a reader"""
    if auth == 'keystone':
        e = os.environ
        return {
            'nova': ({'x-auth-token': e['KS_TOKEN_NOVA']},
                     e['KS_SERVICE_PROJECT_ID'], e['KS_NOVA_USER_ID']),
            'admin': ({'x-auth-token': e['KS_TOKEN_ADMIN']}, None, None),
            'reader': ({'x-auth-token': e['KS_TOKEN_DEMO_READER']},
                       e['KS_DEMO_PROJECT_ID'], None),
        }
    # noauth2: "user:project" tokens, roles from X-Roles (admin is admin)
    service, demo, nova = (str(uuid.uuid4()) for _ in range(3))
    return {
        'nova': ({'x-auth-token': '%s:%s' % (nova, service),
                  'x-roles': 'service'}, service, nova),
        'admin': ({'x-auth-token': 'admin'}, None, None),
        'reader': ({'x-auth-token': 'reader:%s' % demo,
                    'x-roles': 'reader'}, demo, None),
    }


def main(argv):
    global PREFIX
    if len(argv) not in (5, 6):
        sys.stderr.write(__doc__)
        return 2
    root, api, auth, old = argv[1], argv[2], argv[3], argv[4] == '1'
    PREFIX = (argv[5] + ': ') if len(argv) == 6 else ''
    who = identities(auth)

    # -- the health check, as load balancers and probes make it
    anon = Client(api, {})
    paths = ['/'] if api.rstrip('/') == root.rstrip('/') else ['', '/']
    for p in paths:
        st, _, doc = anon.call('GET', p, mv=None)
        ok = st == 200 and isinstance(doc, dict) and any(
            v.get('max_version') == '1.39' for v in doc.get('versions', []))
        shown = urllib.parse.urlsplit(api).path.rstrip('/') + p or '/'
        check('GET %s without a token: 200 and the version document'
              % shown, ok, '%s %s' % (st, doc))

    st, resp, doc = anon.call('GET', '/resource_providers')
    if auth == 'keystone':
        www = resp.getheader('WWW-Authenticate') or ''
        check('a request without a token: 401 naming the file\'s Keystone',
              st == 401 and os.environ['KS_URL'] in www,
              '%s WWW-Authenticate: %r' % (st, www))
    else:
        check('a request without a token: 401', st == 401, st)

    # -- what nova does with a new compute node
    nova_h, service_project, nova_user = who['nova']
    nova = Client(api, nova_h)
    rp = str(uuid.uuid4())
    st, _, doc = nova.call('POST', '/resource_providers',
                           {'name': 'compute-%s' % rp[:8], 'uuid': rp})
    check('nova creates a compute node provider (200)', st == 200,
          '%s %s' % (st, doc))
    st, _, doc = nova.call('PUT', '/resource_providers/%s/inventories' % rp, {
        'resource_provider_generation': 0,
        'inventories': {
            'VCPU': {'total': 8, 'allocation_ratio': 2.0},
            'MEMORY_MB': {'total': 4096, 'reserved': 512},
            'DISK_GB': {'total': 100, 'min_unit': 1, 'step_size': 1}}})
    gen = doc.get('resource_provider_generation') \
        if isinstance(doc, dict) else None
    check('nova sets its inventory (200)', st == 200, '%s %s' % (st, doc))
    trait = 'CUSTOM_DEPLOY_%s' % rp[:8].upper()
    st, _, doc = nova.call('PUT', '/traits/%s' % trait, mv=MV)
    check('nova creates a custom trait (201)', st == 201, '%s %s' % (st, doc))
    st, _, doc = nova.call('PUT', '/resource_providers/%s/traits' % rp, {
        'resource_provider_generation': gen,
        'traits': ['HW_CPU_X86_AVX2', trait]})
    check('nova sets the provider\'s traits (200)', st == 200,
          '%s %s' % (st, doc))

    st, _, doc = nova.call(
        'GET', '/allocation_candidates?resources=VCPU:2,MEMORY_MB:1024'
        '&required=%s' % trait)
    reqs = doc.get('allocation_requests', []) if isinstance(doc, dict) \
        else []
    check('allocation candidates: the new node, once (200)',
          st == 200 and len(reqs) == 1 and rp in reqs[0]['allocations'],
          '%s %s' % (st, doc))

    consumer = str(uuid.uuid4())
    claim = {'allocations': {rp: {'resources': {'VCPU': 2,
                                                'MEMORY_MB': 1024}}},
             'project_id': service_project, 'user_id': nova_user,
             'consumer_generation': None, 'consumer_type': 'INSTANCE'}
    st, _, doc = nova.call('PUT', '/allocations/%s' % consumer, claim)
    check('nova claims 2 VCPU and 1024 MB for an instance (204)', st == 204,
          '%s %s' % (st, doc))
    st, _, doc = nova.call('GET', '/resource_providers/%s/usages' % rp)
    usages = doc.get('usages', {}) if isinstance(doc, dict) else {}
    check('the provider\'s usages show the claim',
          st == 200 and usages.get('VCPU') == 2
          and usages.get('MEMORY_MB') == 1024, '%s %s' % (st, doc))
    # 1.38 on: grouped by consumer type
    st, _, doc = nova.call('GET', '/usages?project_id=%s' % service_project)
    check('the project\'s usages show the instance\'s claim',
          st == 200 and isinstance(doc, dict)
          and doc['usages'].get('INSTANCE', {}).get('VCPU') == 2,
          '%s %s' % (st, doc))
    big = dict(claim, consumer_generation=None,
               allocations={rp: {'resources': {'MEMORY_MB': 3000}}})
    st, _, doc = nova.call('PUT', '/allocations/%s' % uuid.uuid4(), big)
    # 1024 + 3000 MB over (4096 - 512) x 1.0: each fits max_unit, not both
    check('a claim beyond capacity is refused (409)', st == 409,
          '%s %s' % (st, doc))
    st, _, doc = nova.call('DELETE', '/allocations/%s' % consumer)
    check('nova releases the claim (204)', st == 204, '%s %s' % (st, doc))

    # -- policy under the file's [oslo_policy] settings
    reader_h, demo_project, _ = who['reader']
    reader = Client(api, reader_h)
    st, _, doc = reader.call('POST', '/resource_providers',
                             {'name': 'not-by-a-reader'})
    check('a reader may not create a provider (403)', st == 403,
          '%s %s' % (st, doc))
    st, _, doc = reader.call('PUT', '/traits/CUSTOM_NOT_BY_A_READER')
    check('a reader may not create a trait (403)', st == 403,
          '%s %s' % (st, doc))
    st, _, doc = reader.call('GET', '/usages?project_id=%s' % demo_project)
    check('a reader reads its own project\'s usages (200)', st == 200,
          '%s %s' % (st, doc))

    def reshape(client, generation):
        return client.call('POST', '/reshaper', {
            'inventories': {rp: {
                'resource_provider_generation': generation,
                'inventories': {'VCPU': {'total': 8}}}},
            'allocations': {}})

    def generation():  # claims and releases moved it on
        st, _, doc = nova.call('GET', '/resource_providers/%s' % rp)
        return doc.get('generation') if isinstance(doc, dict) else None

    admin = Client(api, who['admin'][0])
    st, _, doc = reshape(admin, generation())
    if old:
        check('an admin may reshape under the deprecated defaults (204)',
              st == 204, '%s %s' % (st, doc))
    else:
        check('an admin may not reshape under the new defaults (403)',
              st == 403, '%s %s' % (st, doc))
    st, _, doc = reshape(nova, generation())
    check('nova (role service) may reshape (204)', st == 204,
          '%s %s' % (st, doc))

    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
