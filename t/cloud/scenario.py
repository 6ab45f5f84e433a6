#!/usr/bin/python3
"""The operator's scenario on the cloud of scripts/cloud (issue 24).

    scenario.py DIR main         boots, NoValidHost, resize confirm/revert,
                                 cold migration, shelve-offload/unshelve,
                                 delete, quota from placement, nova-manage
                                 placement audit / heal_allocations,
                                 nova-status upgrade check
    scenario.py DIR delete-host  cloud-a's nova-compute stopped, its
                                 service deleted: its provider is gone

After each step it asserts in placement what an operator would check:
each server's allocations equal its flavor, on the providers of its host
(VGPU on cloud-b's child provider); a migration's consumer holds the old
flavor on the source while the server holds the new one on the
destination; usages per project; nothing left behind; generations move.
Prints one line per check ("ok - ..." / "not ok - ...") and, last,
"scenario: N passed, M failed"; the exit status is 1 when a check failed.
"""

import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(REPO, 'scripts', 'cloud'))
import cloudapi  # noqa: E402

PASSED = []
FAILED = []


def check(name, cond, detail=''):
    if cond:
        PASSED.append(name)
        print('ok - %s' % name, flush=True)
    else:
        FAILED.append(name)
        print('not ok - %s%s' % (name, (': %s' % detail) if detail else ''),
              flush=True)
    return cond


class Cloud:
    def __init__(self, cloud_dir):
        self.dir = cloud_dir
        self.env = cloudapi.read_env(cloud_dir)
        self.admin = cloudapi.Client(self.env, 'admin', 'admin')
        self.demo = cloudapi.Client(self.env, 'demo', 'demo')
        self.flavors = {}
        for f in self.admin.nova('GET', '/flavors/detail')['flavors']:
            specs = self.admin.nova('GET', '/flavors/%s/os-extra_specs'
                                    % f['id'])['extra_specs']
            self.flavors[f['name']] = dict(f, specs=specs)
        self.image = self.admin.call(
            'image', 'GET', '/v2/images?name=cloud-image')[1]['images'][0]

    # --- placement views ---
    def providers(self):
        rps = self.admin.placement('GET', '/resource_providers')
        return {rp['name']: rp for rp in rps['resource_providers']}

    def allocations(self, consumer):
        doc = self.admin.placement('GET', '/allocations/%s' % consumer)
        return {rp: a['resources'] for rp, a in doc['allocations'].items()}

    def usages(self, project):
        # 1.9: one total per class (1.38 groups them by consumer type)
        return self.admin.placement('GET', '/usages?project_id=%s'
                                    % project, version='1.9')['usages']

    def expected(self, flavor_name, host):
        """{provider uuid: resources} a server of flavor on host holds."""
        f = self.flavors[flavor_name]
        rps = self.providers()
        root = {'VCPU': f['vcpus'], 'MEMORY_MB': f['ram'],
                'DISK_GB': f['disk']}
        out = {rps[host]['uuid']: root}
        if 'resources:VGPU' in f['specs']:
            out[rps[host + '_gpu0']['uuid']] = {
                'VGPU': int(f['specs']['resources:VGPU'])}
        return out

    # --- nova ---
    def boot(self, client, name, flavor, host=None, wait=True):
        body = {'server': {'name': name, 'flavorRef':
                           self.flavors[flavor]['id'],
                           'imageRef': self.image['id'],
                           'networks': 'none'}}
        if host:
            body['server']['host'] = host
        server = client.nova('POST', '/servers', body)['server']
        if wait:
            return self.wait_status(server['id'], ('ACTIVE', 'ERROR'))
        return server

    def server(self, sid):
        return self.admin.nova('GET', '/servers/%s' % sid)['server']

    def wait_status(self, sid, statuses, timeout=180):
        def done():
            s = self.server(sid)
            if s['status'] in statuses and not s.get('OS-EXT-STS:task_state'):
                return s
            return None
        return cloudapi.wait('server %s in %s' % (sid, statuses), done,
                             timeout=timeout, interval=1)

    def action(self, sid, body, client=None):
        (client or self.admin).nova('POST', '/servers/%s/action' % sid, body)

    def delete(self, sid):
        self.admin.nova('DELETE', '/servers/%s' % sid)

        def gone():
            st, _ = self.admin.call('compute', 'GET', '/servers/%s' % sid,
                                    expect=(200, 404))
            return st == 404
        cloudapi.wait('server %s deleted' % sid, gone, timeout=120)

    def migration_of(self, sid):
        # /os-migrations has finished ones too (a server's own list only
        # those in progress); its uuid is the migration's consumer
        migs = self.admin.nova('GET', '/os-migrations?instance_uuid=%s'
                               % sid)['migrations']
        migs.sort(key=lambda m: m['id'])
        return migs[-1] if migs else None

    def nova_cmd(self, *args):
        """nova-manage / nova-status with the cloud's nova.conf."""
        conf = os.path.join(self.dir, 'nova', 'nova.conf')
        module = {'nova-manage': 'nova.cmd.manage',
                  'nova-status': 'nova.cmd.status'}[args[0]]
        cmd = ['/usr/bin/python3', os.path.join(REPO, 'scripts', 'cloud',
                                                'service.py'),
               args[0], module, '--config-file', conf] + list(args[1:])
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=300)
        return proc.returncode, proc.stdout + proc.stderr


def host_of(server):
    return server['OS-EXT-SRV-ATTR:host']


def other(host):
    return 'cloud-b' if host == 'cloud-a' else 'cloud-a'


def sum_usages(flavors):
    total = {}
    for f in flavors:
        for rc, n in f.items():
            total[rc] = total.get(rc, 0) + n
    return total


def step(title):
    print('# %s %s' % (time.strftime('%H:%M:%S'), title), flush=True)


def scenario_main(c):
    demo_project = c.demo.project_id
    gen0 = {n: rp['generation'] for n, rp in c.providers().items()}
    check('three providers: cloud-a, cloud-b and its child cloud-b_gpu0',
          set(gen0) == {'cloud-a', 'cloud-b', 'cloud-b_gpu0'}, sorted(gen0))
    check('nothing allocated before the first boot',
          all(v == 0 for v in c.usages(demo_project).values()),
          c.usages(demo_project))

    step('boot servers of three flavors')
    t0 = time.monotonic()
    s_tiny = c.boot(c.demo, 'tiny', 'm1.tiny', wait=False)
    s_small = c.boot(c.demo, 'small', 'm1.small', wait=False)
    s_vgpu = c.boot(c.demo, 'vgpu', 'm1.vgpu', wait=False)
    servers = {}
    for name, s, flavor in (('tiny', s_tiny, 'm1.tiny'),
                            ('small', s_small, 'm1.small'),
                            ('vgpu', s_vgpu, 'm1.vgpu')):
        got = c.wait_status(s['id'], ('ACTIVE', 'ERROR'))
        servers[name] = (got, flavor)
        check('%s is ACTIVE' % name, got['status'] == 'ACTIVE',
              got.get('fault'))
    print('# three boots: %.1fs' % (time.monotonic() - t0))
    for name, (s, flavor) in servers.items():
        want = c.expected(flavor, host_of(s))
        got = c.allocations(s['id'])
        check('%s: allocations equal %s on %s' % (name, flavor, host_of(s)),
              got == want, 'got %s want %s' % (got, want))
    check('vgpu landed on cloud-b, VGPU from its child provider',
          host_of(servers['vgpu'][0]) == 'cloud-b')
    want_usage = sum_usages(
        [r for s, f in servers.values()
         for r in c.expected(f, host_of(s)).values()])
    got_usage = {k: v for k, v in c.usages(demo_project).items() if v}
    check('usages of project demo are the sum of the flavors',
          got_usage == want_usage, 'got %s want %s' % (got_usage, want_usage))
    gen1 = {n: rp['generation'] for n, rp in c.providers().items()}
    check('generations of the hosts that took a server moved',
          all(gen1[host_of(s)] > gen0[host_of(s)]
              for s, _ in servers.values()) and
          gen1['cloud-b_gpu0'] > gen0['cloud-b_gpu0'],
          'before %s after %s' % (gen0, gen1))

    step('a boot that fits nowhere')
    huge = c.boot(c.demo, 'huge', 'm1.huge')
    check('m1.huge ends in ERROR', huge['status'] == 'ERROR', huge['status'])
    fault = (huge.get('fault') or {}).get('message', '')
    check('its fault is NoValidHost', 'No valid host' in fault, fault)
    check('m1.huge holds no allocation', c.allocations(huge['id']) == {},
          c.allocations(huge['id']))
    c.delete(huge['id'])

    step('resize with confirm')
    s = servers['tiny'][0]
    src = host_of(s)
    c.action(s['id'], {'resize': {'flavorRef': c.flavors['m1.small']['id']}},
             client=c.demo)
    s = c.wait_status(s['id'], ('VERIFY_RESIZE', 'ERROR', 'ACTIVE'))
    check('resize of tiny reaches VERIFY_RESIZE',
          s['status'] == 'VERIFY_RESIZE', s['status'])
    mig = c.migration_of(s['id'])
    check('resize went to the other host', host_of(s) == other(src),
          host_of(s))
    check('during the resize the server holds m1.small on the destination',
          c.allocations(s['id']) == c.expected('m1.small', host_of(s)),
          c.allocations(s['id']))
    check('during the resize the migration holds m1.tiny on the source',
          mig and c.allocations(mig['uuid']) == c.expected('m1.tiny', src),
          mig and c.allocations(mig['uuid']))
    c.action(s['id'], {'confirmResize': None}, client=c.demo)
    s = c.wait_status(s['id'], ('ACTIVE', 'ERROR'))
    check('after confirm the server holds m1.small on the destination',
          c.allocations(s['id']) == c.expected('m1.small', host_of(s)),
          c.allocations(s['id']))
    check('after confirm the migration holds nothing',
          c.allocations(mig['uuid']) == {}, c.allocations(mig['uuid']))
    servers['tiny'] = (s, 'm1.small')

    step('resize with revert')
    s = servers['small'][0]
    src = host_of(s)
    c.action(s['id'], {'resize': {'flavorRef': c.flavors['m1.medium']['id']}},
             client=c.demo)
    s = c.wait_status(s['id'], ('VERIFY_RESIZE', 'ERROR', 'ACTIVE'))
    mig = c.migration_of(s['id'])
    check('resize of small to m1.medium reaches VERIFY_RESIZE elsewhere',
          s['status'] == 'VERIFY_RESIZE' and host_of(s) == other(src),
          '%s on %s' % (s['status'], host_of(s)))
    if s['status'] == 'VERIFY_RESIZE':
        check('during it the server holds m1.medium on the destination',
              c.allocations(s['id']) == c.expected('m1.medium', host_of(s)),
              c.allocations(s['id']))
        check('during it the migration holds m1.small on the source',
              c.allocations(mig['uuid']) == c.expected('m1.small', src),
              c.allocations(mig['uuid']))
        c.action(s['id'], {'revertResize': None}, client=c.demo)
        s = c.wait_status(s['id'], ('ACTIVE', 'ERROR'))
    check('after revert the server is back on its host with m1.small',
          host_of(s) == src and
          c.allocations(s['id']) == c.expected('m1.small', src),
          '%s %s' % (host_of(s), c.allocations(s['id'])))
    check('after revert the migration holds nothing',
          mig and c.allocations(mig['uuid']) == {},
          mig and c.allocations(mig['uuid']))
    servers['small'] = (s, 'm1.small')

    step('cold migration')
    s = servers['small'][0]
    src = host_of(s)
    c.action(s['id'], {'migrate': None})
    s = c.wait_status(s['id'], ('VERIFY_RESIZE', 'ERROR', 'ACTIVE'))
    mig = c.migration_of(s['id'])
    check('migration of small reaches VERIFY_RESIZE on the other host',
          s['status'] == 'VERIFY_RESIZE' and host_of(s) == other(src),
          '%s on %s' % (s['status'], host_of(s)))
    check('during it the migration consumer holds the flavor on the source',
          mig and c.allocations(mig['uuid']) ==
          c.expected('m1.small', src), mig and c.allocations(mig['uuid']))
    check('during it the server holds the flavor on the destination',
          c.allocations(s['id']) == c.expected('m1.small', other(src)),
          c.allocations(s['id']))
    c.action(s['id'], {'confirmResize': None})
    s = c.wait_status(s['id'], ('ACTIVE', 'ERROR'))
    check('after confirm: server on the destination, migration empty',
          c.allocations(s['id']) == c.expected('m1.small', other(src)) and
          c.allocations(mig['uuid']) == {},
          '%s / %s' % (c.allocations(s['id']), c.allocations(mig['uuid'])))
    servers['small'] = (s, 'm1.small')

    step('shelve-offload and unshelve')
    s = servers['vgpu'][0]
    c.action(s['id'], {'shelve': None}, client=c.demo)
    s = c.wait_status(s['id'], ('SHELVED_OFFLOADED', 'ERROR'))
    check('vgpu is SHELVED_OFFLOADED', s['status'] == 'SHELVED_OFFLOADED',
          s['status'])
    check('offloaded, it holds no allocation', c.allocations(s['id']) == {},
          c.allocations(s['id']))
    c.action(s['id'], {'unshelve': None}, client=c.demo)
    s = c.wait_status(s['id'], ('ACTIVE', 'ERROR'))
    check('unshelved, ACTIVE with m1.vgpu on cloud-b again',
          s['status'] == 'ACTIVE' and
          c.allocations(s['id']) == c.expected('m1.vgpu', 'cloud-b'),
          '%s %s' % (s['status'], c.allocations(s['id'])))
    servers['vgpu'] = (s, 'm1.vgpu')

    want_usage = sum_usages(
        [r for s, f in servers.values()
         for r in c.expected(f, host_of(s)).values()])
    got_usage = {k: v for k, v in c.usages(demo_project).items() if v}
    check('usages of demo after the moves are the sum of the flavors',
          got_usage == want_usage, 'got %s want %s' % (got_usage, want_usage))

    step('quota counted from placement')
    used_cores = want_usage.get('VCPU', 0)
    c.admin.nova('PUT', '/os-quota-sets/%s' % demo_project,
                 {'quota_set': {'cores': used_cores + 1}})
    st, doc = c.demo.call('compute', 'POST', '/servers', {'server': {
        'name': 'over', 'flavorRef': c.flavors['m1.small']['id'],
        'imageRef': c.image['id'], 'networks': 'none'}}, version='2.90',
        expect=(202, 403))
    check('a boot over the cores limit is refused with 403 quota exceeded',
          st == 403 and 'Quota exceeded' in str(doc), '%s %s' % (st, doc))
    quota = c.demo.nova('GET', '/os-quota-sets/%s/detail' % demo_project)
    check('nova counts the cores in use from placement',
          quota['quota_set']['cores']['in_use'] == used_cores,
          quota['quota_set']['cores'])
    st, doc = c.demo.call('compute', 'POST', '/servers', {'server': {
        'name': 'fits', 'flavorRef': c.flavors['m1.tiny']['id'],
        'imageRef': c.image['id'], 'networks': 'none'}}, version='2.90',
        expect=(202, 403))
    check('a boot within the limit is accepted', st == 202, '%s %s'
          % (st, doc))
    if st == 202:
        fits = c.wait_status(doc['server']['id'], ('ACTIVE', 'ERROR'))
        c.delete(fits['id'])
    c.admin.nova('DELETE', '/os-quota-sets/%s' % demo_project)

    step('nova-manage placement audit, heal_allocations; nova-status')
    rc, out = c.nova_cmd('nova-manage', 'placement', 'audit', '--verbose')
    check('nova-manage placement audit finds nothing (exit 0)', rc == 0,
          '%d %s' % (rc, out[-400:]))
    # nova refuses to heal a server with VGPU at all ("not supported",
    # exit 8): the others are asked about one by one
    for name in ('tiny', 'small'):
        rc, out = c.nova_cmd('nova-manage', 'placement', 'heal_allocations',
                             '--verbose', '--instance', servers[name][0]['id'])
        check('nova-manage placement heal_allocations --instance (%s): '
              'nothing to heal (exit 4)' % name, rc == 4,
              '%d %s' % (rc, out[-400:]))
    rc, out = c.nova_cmd('nova-status', 'upgrade', 'check')
    placement_ok = False
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if 'Check: Placement API' in line:
            placement_ok = any('Result: Success' in x for x in lines[i:i + 3])
    check('nova-status upgrade check: Placement API Success',
          placement_ok, out[-800:])
    check('nova-status upgrade check has no failure (exit 0 or 1)',
          rc in (0, 1), '%d' % rc)

    step('delete')
    for s, _ in servers.values():
        c.delete(s['id'])
    for name, (s, _) in servers.items():
        check('%s deleted: no allocation left' % name,
              c.allocations(s['id']) == {}, c.allocations(s['id']))
    left = {k: v for k, v in c.usages(demo_project).items() if v}
    check('usages of demo back to nothing', left == {}, left)
    for name, rp in c.providers().items():
        u = c.admin.placement('GET', '/resource_providers/%s/usages'
                              % rp['uuid'])['usages']
        check('%s uses nothing' % name, not any(u.values()), u)


def scenario_delete_host(c):
    step("cloud-a's compute service stopped and deleted")
    rps = c.providers()
    check('cloud-a is a provider before', 'cloud-a' in rps)
    subprocess.run([os.path.join(REPO, 'scripts', 'cloud', 'cloud.sh'),
                    'stop-service', c.dir, 'nova-compute-a'], check=True)
    svcs = c.admin.nova('GET', '/os-services?binary=nova-compute&host=cloud-a')
    svc = svcs['services'][0]
    c.admin.nova('PUT', '/os-services/%s' % svc['id'],
                 {'forced_down': True})
    c.admin.nova('DELETE', '/os-services/%s' % svc['id'])
    rps = c.providers()
    check('cloud-a is no provider after its service is deleted',
          'cloud-a' not in rps, sorted(rps))
    check('cloud-b and its child remain',
          {'cloud-b', 'cloud-b_gpu0'} <= set(rps), sorted(rps))
    hvs = c.admin.nova('GET', '/os-hypervisors')['hypervisors']
    check('nova lists cloud-b only',
          [h['hypervisor_hostname'] for h in hvs] == ['cloud-b'], hvs)


def main(argv):
    if len(argv) != 3 or argv[2] not in ('main', 'delete-host'):
        sys.stderr.write(__doc__)
        return 2
    c = Cloud(argv[1])
    try:
        if argv[2] == 'main':
            scenario_main(c)
        else:
            scenario_delete_host(c)
    except (cloudapi.ApiError, KeyError, TypeError, IndexError,
            subprocess.SubprocessError) as exc:
        check('scenario ran to its end', False, repr(exc))
    print('scenario: %d passed, %d failed' % (len(PASSED), len(FAILED)))
    return 1 if FAILED else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
