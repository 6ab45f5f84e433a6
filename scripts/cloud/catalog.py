#!/usr/bin/python3
"""Users, roles and catalog of the cloud of scripts/cloud (make cloud).

    catalog.py ENVFILE

Reads from the environment: KS_URL (http://127.0.0.1:PORT/identity),
KS_ADMIN_PASSWORD (keystone-manage bootstrap's), CLOUD_URL (the Apache
that serves /identity, /compute and /placement), CLOUD_IMAGE_URL,
CLOUD_NETWORK_URL. Creates, as a deployment has them: the roles reader,
member, admin, service; the projects service and demo; the service users
nova, placement, glance and neutron with the role service on project
service (and admin there too: neutron, whose rules want it for the ports
of other projects nova asks about, and nova when CLOUD_POLICY is zed); demo with member on
demo; the services compute, placement, image and network with public,
internal and admin endpoints. Writes ENVFILE (shell KEY='value' lines:
every password and id). Idempotent, like keystone-tool.py setup, whose
HTTP helpers it uses.
"""

import importlib.util
import os
import secrets
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    'keystone_tool', os.path.join(_here, '..', 'keystone-tool.py'))
kt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(kt)

# user -> [(project, role)...]
USERS = {
    'nova': [('service', 'service')],
    'placement': [('service', 'service')],
    'glance': [('service', 'service')],
    'neutron': [('service', 'service'), ('service', 'admin')],
    'demo': [('demo', 'member'), ('demo', 'reader')],
}
PROJECTS = ('service', 'demo')
ROLES = ('reader', 'member', 'admin', 'service')


def main(envfile):
    base = os.environ['KS_URL']
    cloud = os.environ['CLOUD_URL']
    region = 'RegionOne'
    old = kt.read_env(envfile) if os.path.exists(envfile) else {}
    env = dict(old)
    env.update({'KS_URL': base, 'KS_ADMIN_PASSWORD':
                os.environ['KS_ADMIN_PASSWORD']})
    token = kt.admin_token(env)
    if os.environ.get('CLOUD_POLICY', 'zed') == 'zed':
        # placement 8.0.0's rules let a project-scoped token through on its
        # deprecated check role:admin alone: nova needs admin there
        USERS['nova'].append(('service', 'admin'))
    roles = {name: kt.ensure(base, token, 'roles', 'role',
                             {'name': name})['id'] for name in ROLES}
    projects = {'admin': kt.find_one(base, token, 'projects', name='admin')}
    for name in PROJECTS:
        projects[name] = kt.ensure(base, token, 'projects', 'project', {
            'name': name, 'domain_id': 'default',
            'description': 'mod_placement cloud'})
    for name, proj in projects.items():
        env['KS_%s_PROJECT_ID' % kt.env_name(name)] = proj['id']
    for user, grants in USERS.items():
        var = 'KS_%s_PASSWORD' % kt.env_name(user)
        password = old.get(var) or secrets.token_hex(12)
        found = kt.find_one(base, token, 'users', name=user)
        if found:
            kt.call('PATCH', '%s/v3/users/%s' % (base, found['id']),
                    {'user': {'password': password}}, token=token)
        else:
            found = kt.ensure(base, token, 'users', 'user', {
                'name': user, 'domain_id': 'default',
                'password': password, 'enabled': True})
        env[var] = password
        env['KS_%s_USER_ID' % kt.env_name(user)] = found['id']
        for project, role in grants:
            kt.call('PUT', '%s/v3/projects/%s/users/%s/roles/%s'
                    % (base, projects[project]['id'], found['id'],
                       roles[role]), token=token, expect=(204,))
    for name, kind, url in (
            ('nova', 'compute', cloud + '/compute/v2.1'),
            ('placement', 'placement', cloud + '/placement'),
            ('glance', 'image', os.environ['CLOUD_IMAGE_URL']),
            ('neutron', 'network', os.environ['CLOUD_NETWORK_URL'])):
        service = kt.ensure(base, token, 'services', 'service', {
            'name': name, 'type': kind})
        kt.set_endpoints(base, token, service['id'], url, region)
    tmp = envfile + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as fh:
        fh.write('# written by scripts/cloud/catalog.py\n')
        for k in sorted(env):
            fh.write("%s='%s'\n" % (k, env[k]))
    os.replace(tmp, envfile)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    try:
        main(sys.argv[1])
    except (kt.KsError, OSError, KeyError) as exc:
        sys.stderr.write('catalog: %s\n' % exc)
        sys.exit(1)
