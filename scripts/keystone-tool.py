#!/usr/bin/python3
"""Small Keystone v3 client for the private test Keystone (stdlib only).

usage:
  keystone-tool.py setup ENVFILE     create the test roles, projects, users,
                                     role assignments and the placement
                                     service with its endpoints; write
                                     ENVFILE (shell KEY=value lines)
  keystone-tool.py tokens ENVFILE    print KS_TOKEN_<USER>=<token> lines,
                                     one project-scoped token per test user,
                                     KS_TOKEN_ADMIN_SYSTEM (system scope)
                                     and KS_TOKEN_DEMO_MEMBER_UNSCOPED
  keystone-tool.py token ENVFILE USER [PROJECT|--system|--unscoped]
                                     print one token of USER (scoped to
                                     PROJECT, default the user's own)
  keystone-tool.py revoke ENVFILE TOKEN
                                     revoke TOKEN (DELETE /v3/auth/tokens)
  keystone-tool.py endpoints ENVFILE URL
                                     point the placement endpoints at URL

setup reads from the environment: KS_URL (http://127.0.0.1:PORT, without
/v3), KS_ADMIN_PASSWORD (what keystone-manage bootstrap was given),
KS_PLACEMENT_URL (the placement endpoint URL), KS_DIR, KS_REGION (default
RegionOne). It is idempotent: what exists is looked up by name and kept.
The other commands read ENVFILE only. Exit status 1 with a message on any
unexpected HTTP status.

Why not keystoneclient or the openstack CLI: each `openstack` call costs
about two seconds of imports; plain HTTP does the whole set-up in well
under a second.
"""

import json
import os
import secrets
import sys
import urllib.error
import urllib.request

# name -> (project, role) of every test user but admin (bootstrap makes
# admin, with role admin on project admin). placement is the service user
# mod_placement authenticates as; nova is another service; the demo users
# are plain project users.
USERS = {
    'placement': ('service', 'service'),
    'nova': ('service', 'service'),
    'demo-member': ('demo', 'member'),
    'demo-reader': ('demo', 'reader'),
}
PROJECTS = ('service', 'demo')
ROLES = ('reader', 'member', 'admin', 'service')


class KsError(Exception):
    pass


def env_name(user):
    """demo-member -> DEMO_MEMBER (a shell variable name part)."""
    return user.upper().replace('-', '_')


def call(method, url, body=None, token=None, subject=None, expect=(200,)):
    """One JSON request; returns (status, headers, decoded body or None)."""
    data = None
    headers = {'Accept': 'application/json'}
    if body is not None:
        data = json.dumps(body).encode()
        headers['Content-Type'] = 'application/json'
    if token:
        headers['X-Auth-Token'] = token
    if subject:
        headers['X-Subject-Token'] = subject
    req = urllib.request.Request(url, data=data, headers=headers,
                                 method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, hdrs, raw = resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as err:
        status, hdrs, raw = err.code, err.headers, err.read()
    if status not in expect:
        raise KsError('%s %s: %d %s' % (method, url, status,
                                        raw[:300].decode('utf-8', 'replace')))
    doc = json.loads(raw) if raw.strip() else None
    return status, hdrs, doc


def password_token(base, user, password, project, domain='Default'):
    """A token of user: (token id, token body). Scoped to project, or to
    the system with project '--system', or unscoped with '--unscoped'."""
    body = {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': user, 'domain': {'name': domain},
            'password': password}}}}}
    if project == '--system':
        body['auth']['scope'] = {'system': {'all': True}}
    elif project != '--unscoped':
        body['auth']['scope'] = {'project': {'name': project,
                                             'domain': {'name': domain}}}
    _, hdrs, doc = call('POST', base + '/v3/auth/tokens', body,
                        expect=(201,))
    return hdrs['X-Subject-Token'], doc['token']


def read_env(path):
    env = {}
    with open(path, encoding='utf-8') as fh:
        for line in fh:
            line = line.strip()
            if line and not line.startswith('#') and '=' in line:
                k, v = line.split('=', 1)
                env[k] = v.strip("'")
    return env


def find_one(base, token, collection, **filters):
    """The entity of /v3/<collection> with these query filters, or None."""
    qs = '&'.join('%s=%s' % kv for kv in filters.items())
    _, _, doc = call('GET', '%s/v3/%s?%s' % (base, collection, qs),
                     token=token)
    found = doc[collection]
    return found[0] if found else None


def ensure(base, token, collection, key, attrs):
    """Look up /v3/<collection> by name, create it when missing."""
    found = find_one(base, token, collection, name=attrs['name'])
    if found:
        return found
    _, _, doc = call('POST', '%s/v3/%s' % (base, collection), {key: attrs},
                     token=token, expect=(201,))
    return doc[key]


def set_endpoints(base, token, service_id, url, region):
    """One endpoint per interface at url (updated when it exists)."""
    for iface in ('public', 'internal', 'admin'):
        _, _, doc = call('GET', '%s/v3/endpoints?service_id=%s&interface=%s'
                         % (base, service_id, iface), token=token)
        if doc['endpoints']:
            call('PATCH', '%s/v3/endpoints/%s'
                 % (base, doc['endpoints'][0]['id']),
                 {'endpoint': {'url': url}}, token=token)
        else:
            call('POST', base + '/v3/endpoints',
                 {'endpoint': {'service_id': service_id, 'interface': iface,
                               'url': url, 'region_id': region}},
                 token=token, expect=(201,))


def admin_token(env):
    return password_token(env['KS_URL'], 'admin', env['KS_ADMIN_PASSWORD'],
                          'admin')[0]


def app_credential(base, env):
    """An application credential of the placement user on the service
    project (what the RH operator's [keystone_authtoken] names instead
    of a password), made anew each time: its secret is shown only once.
    Returns its env lines."""
    name = 'placement-tests'
    user_id = env['KS_PLACEMENT_USER_ID']
    own, _ = password_token(base, 'placement', env['KS_PLACEMENT_PASSWORD'],
                            'service')
    url = '%s/v3/users/%s/application_credentials' % (base, user_id)
    _, _, found = call('GET', url + '?name=' + name, token=own)
    for cred in found['application_credentials']:
        call('DELETE', '%s/%s' % (url, cred['id']), token=own,
             expect=(204,))
    _, _, made = call('POST', url, {'application_credential': {
        'name': name, 'description': 'mod_placement tests'}}, token=own,
        expect=(201,))
    cred = made['application_credential']
    return {'KS_PLACEMENT_APP_CRED_ID': cred['id'],
            'KS_PLACEMENT_APP_CRED_NAME': name,
            'KS_PLACEMENT_APP_CRED_SECRET': cred['secret']}


def cmd_setup(envfile):
    base = os.environ['KS_URL']
    region = os.environ.get('KS_REGION', 'RegionOne')
    # A re-run keeps the passwords it wrote the first time.
    old = read_env(envfile) if os.path.exists(envfile) else {}
    env = {
        'KS_URL': base,
        'KS_PORT': base.rsplit(':', 1)[1],
        'KS_DIR': os.environ.get('KS_DIR', ''),
        'KS_REGION': region,
        'KS_PLACEMENT_URL': os.environ['KS_PLACEMENT_URL'],
        'KS_ADMIN_PASSWORD': os.environ['KS_ADMIN_PASSWORD'],
        'KS_ADMIN_PROJECT': 'admin',
        'KS_SERVICE_PROJECT': 'service',
        'KS_DEMO_PROJECT': 'demo',
        'KS_USER_DOMAIN': 'Default',
        'KS_PROJECT_DOMAIN': 'Default',
    }
    token = admin_token(env)
    roles = {}
    for name in ROLES:  # reader, member, admin come from bootstrap
        roles[name] = ensure(base, token, 'roles', 'role',
                             {'name': name})['id']
    projects = {'admin': find_one(base, token, 'projects', name='admin')}
    for name in PROJECTS:
        projects[name] = ensure(base, token, 'projects', 'project', {
            'name': name, 'domain_id': 'default',
            'description': 'mod_placement tests'})
    for name, proj in projects.items():
        env['KS_%s_PROJECT_ID' % env_name(name)] = proj['id']
    env['KS_ADMIN_USER_ID'] = find_one(base, token, 'users',
                                       name='admin')['id']
    for user, (project, role) in USERS.items():
        var = 'KS_%s_PASSWORD' % env_name(user)
        password = old.get(var) or secrets.token_hex(12)
        found = find_one(base, token, 'users', name=user)
        if found:  # make sure the password is the one we write down
            call('PATCH', '%s/v3/users/%s' % (base, found['id']),
                 {'user': {'password': password}}, token=token)
        else:
            found = ensure(base, token, 'users', 'user', {
                'name': user, 'domain_id': 'default', 'password': password,
                'enabled': True})
        env[var] = password
        env['KS_%s_USER_ID' % env_name(user)] = found['id']
        call('PUT', '%s/v3/projects/%s/users/%s/roles/%s'
             % (base, projects[project]['id'], found['id'], roles[role]),
             token=token, expect=(204,))
    env.update(app_credential(base, env))
    service = ensure(base, token, 'services', 'service', {
        'name': 'placement', 'type': 'placement',
        'description': 'mod_placement under test'})
    set_endpoints(base, token, service['id'], env['KS_PLACEMENT_URL'],
                  region)
    tmp = envfile + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as fh:
        fh.write('# written by scripts/keystone-tool.py setup\n')
        for k in sorted(env):
            fh.write("%s='%s'\n" % (k, env[k]))
    os.replace(tmp, envfile)


def user_token(env, user, project=None):
    if user == 'admin':
        password, own = env['KS_ADMIN_PASSWORD'], 'admin'
    else:
        password = env['KS_%s_PASSWORD' % env_name(user)]
        own = USERS[user][0]
    return password_token(env['KS_URL'], user, password, project or own)[0]


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    cmd, envfile, args = argv[1], argv[2], argv[3:]
    try:
        if cmd == 'setup':
            cmd_setup(envfile)
            return 0
        env = read_env(envfile)
        if cmd == 'tokens':
            for user in ('admin',) + tuple(USERS):
                print("KS_TOKEN_%s='%s'" % (env_name(user),
                                            user_token(env, user)))
            # admin has role admin on the system too (bootstrap)
            print("KS_TOKEN_ADMIN_SYSTEM='%s'"
                  % user_token(env, 'admin', '--system'))
            print("KS_TOKEN_DEMO_MEMBER_UNSCOPED='%s'"
                  % user_token(env, 'demo-member', '--unscoped'))
        elif cmd == 'token' and len(args) in (1, 2):
            print(user_token(env, *args))
        elif cmd == 'revoke' and len(args) == 1:
            call('DELETE', env['KS_URL'] + '/v3/auth/tokens',
                 token=admin_token(env), subject=args[0], expect=(204,))
        elif cmd == 'endpoints' and len(args) == 1:
            base = env['KS_URL']
            token = admin_token(env)
            svc = find_one(base, token, 'services', type='placement')
            set_endpoints(base, token, svc['id'], args[0], env['KS_REGION'])
            lines = [ln for ln in open(envfile, encoding='utf-8')
                     if not ln.startswith('KS_PLACEMENT_URL=')]
            lines.append("KS_PLACEMENT_URL='%s'\n" % args[0])
            with open(envfile, 'w', encoding='utf-8') as fh:
                fh.writelines(lines)
        else:
            sys.stderr.write(__doc__)
            return 2
    except (KsError, OSError, KeyError, ValueError) as exc:
        sys.stderr.write('keystone-tool %s: %s\n' % (cmd, exc))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
