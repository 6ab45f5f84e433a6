"""Small client of the cloud of scripts/cloud for its set-up and tests.

Plain keystoneauth1 sessions (python3-keystoneauth1): the requests and
answers are the APIs' own, as an operator reads them in the API reference,
and one process makes them all (each `openstack` command costs about two
seconds of imports).
"""

import os
import time

from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3


def read_env(cloud_dir):
    """cloud.env and env of a cloud directory, as a dict."""
    env = {}
    for name in ('cloud.env', 'env'):
        with open(os.path.join(cloud_dir, name), encoding='utf-8') as fh:
            for line in fh:
                line = line.strip()
                if line and not line.startswith('#') and '=' in line:
                    key, value = line.split('=', 1)
                    env[key] = value.strip("'")
    return env


class ApiError(Exception):
    pass


class Client:
    """One user's session, scoped to a project."""

    def __init__(self, env, user, project, password=None):
        self.env = env
        if password is None:
            password = env['KS_%s_PASSWORD' % user.upper()]
        auth = v3.Password(auth_url=env['KS_URL'] + '/v3', username=user,
                           password=password, project_name=project,
                           user_domain_name='Default',
                           project_domain_name='Default')
        self.sess = ks_session.Session(auth=auth, timeout=120)
        self.project_id = self.sess.get_project_id()

    def call(self, service, method, path, body=None, version=None,
             expect=(200,), headers=None):
        """One request to the catalog's public endpoint of service;
        returns (status, decoded JSON or None)."""
        hdrs = dict(headers or {})
        if version:
            kind = 'compute' if service == 'compute' else service
            hdrs['OpenStack-API-Version'] = '%s %s' % (kind, version)
        resp = self.sess.request(
            path, method, json=body, headers=hdrs, raise_exc=False,
            endpoint_filter={'service_type': service, 'interface': 'public'})
        if resp.status_code not in expect:
            raise ApiError('%s %s %s: %d %s' % (service, method, path,
                                                resp.status_code,
                                                resp.text[:400]))
        try:
            doc = resp.json() if resp.content else None
        except ValueError:
            doc = None
        return resp.status_code, doc

    def nova(self, method, path, body=None, expect=(200, 201, 202, 204),
             version='2.90'):
        return self.call('compute', method, path, body, version, expect)[1]

    def placement(self, method, path, body=None, expect=(200,),
                  version='1.39'):
        return self.call('placement', method, path, body, version,
                         expect)[1]


def wait(what, check, timeout=120, interval=0.5):
    """Call check() until it returns something true; return that."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise ApiError('timed out after %ds waiting for %s'
                           % (timeout, what))
        time.sleep(interval)
