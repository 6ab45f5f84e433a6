#!/usr/bin/python3
"""The operator's scenario on the cloud of scripts/cloud (issue 24).

    scenario.py DIR main         boots, NoValidHost, resize confirm/revert,
                                 cold migration, shelve-offload/unshelve,
                                 delete, quota from placement, nova-manage
                                 placement audit / heal_allocations,
                                 nova-status upgrade check
    scenario.py DIR traits       cloud-b reports nova 2026.1's libvirt
                                 traits (issue 34): synced, m1.tpm boots
                                 on cloud-b, not while it is disabled;
                                 with REFERENCE=1 what placement 8.0.0
                                 does with them instead
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
import cloud_traits  # noqa: E402

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


def rp_traits(c, rp_uuid):
    return set(c.admin.placement('GET', '/resource_providers/%s/traits'
                                 % rp_uuid)['traits'])


def sync_failures(path, offset=0):
    """The lines of a nova log from offset that tell a failed provider
    sync."""
    with open(path, encoding='utf-8', errors='replace') as fh:
        fh.seek(offset)
        return [line.rstrip() for line in fh
                if 'TraitCreationFailed' in line or
                'ResourceProviderSyncFailed' in line]


def grep_log(path, offset, text):
    """Whether a line of a log from offset holds text."""
    with open(path, encoding='utf-8', errors='replace') as fh:
        fh.seek(offset)
        return any(text in line for line in fh)


def set_service(c, host, disabled):
    """nova's compute service on host disabled or enabled (what `openstack
    compute service set --disable/--enable` sends)."""
    svc = c.admin.nova('GET', '/os-services?binary=nova-compute&host=%s'
                       % host)['services'][0]
    c.admin.nova('PUT', '/os-services/%s' % svc['id'],
                 {'status': 'disabled' if disabled else 'enabled'})


def scenario_traits(c):
    """Issue 34: cloud-b reports the standard traits of nova 2026.1's
    libvirt driver (scripts/cloud/cloud_traits.py) through nova's own
    report client. With the module (which knows os-traits 3.9.0) they sync
    and a flavor requiring one of them lands on cloud-b. Upstream placement
    8.0.0 (REFERENCE=1) knows os-traits 2.9.0 only and answers 400 to
    nova's PUT /traits/<name>: cloud-b starts with Zed's traits there
    (with 2026.1's its provider sync fails from the start, and so does
    every build on it: docs/cloud.md) and is moved to 2026.1's for this
    step only, then back, so that the storm and delete-host run as
    before."""
    made = []
    release_file = os.path.join(c.dir, 'nova', 'compute-b.release')
    first = cloud_traits.read_release(release_file)
    try:
        traits_steps(c, made, release_file)
    finally:
        # after a failure too: the storm and delete-host need cloud-b
        # enabled, on its first release, and empty
        cloud_traits.write_release(release_file, first)
        set_service(c, 'cloud-b', False)
        for s in made:
            c.delete(s['id'])


def traits_steps(c, made, release_file):
    reference = c.env.get('REFERENCE') == '1'
    tag = 'reference: ' if reference else ''
    log = os.path.join(c.dir, 'log', 'nova-compute-b.log')
    new, _ = cloud_traits.libvirt_traits('2026.1')
    rps = c.providers()
    root_a, root_b = rps['cloud-a']['uuid'], rps['cloud-b']['uuid']

    if reference:
        step("cloud-b moved from Zed's libvirt traits to 2026.1's")
        bad = sync_failures(log)
        check('reference: with Zed traits nova-compute-b synced so far (no '
              'TraitCreationFailed in its log)', not bad, bad[:2])
        mark = os.path.getsize(log)
        cloud_traits.write_release(release_file, '2026.1')
        # nova-compute syncs its provider tree at each claim: ask cloud-b
        s = c.boot(c.admin, 'b-2026.1', 'm1.tiny', host='cloud-b')
        made.append(s)
        # its claim fails, nova reschedules, and there is no other host
        fault = (s.get('fault') or {}).get('message', '')
        check('reference: a server asked on cloud-b (2026.1 traits) ends in '
              'ERROR, "Exceeded maximum number of retries"',
              s['status'] == 'ERROR' and
              'Exceeded maximum number of retries' in fault,
              '%s %s' % (s['status'], fault))
        check('reference: it holds no allocation',
              c.allocations(s['id']) == {}, c.allocations(s['id']))
        bad = sync_failures(log, mark)
        check('reference: nova-compute-b.log has TraitCreationFailed and '
              'ResourceProviderSyncFailed (8.0.0 answers 400 to PUT '
              '/traits/<standard name>)',
              any('TraitCreationFailed' in x for x in bad) and
              any('ResourceProviderSyncFailed' in x for x in bad),
              bad[:4])
        got = rp_traits(c, root_b) & set(new)
        check("reference: none of the %d traits is on cloud-b's root"
              % len(new), not got, sorted(got))
    else:
        step("cloud-b's traits of nova 2026.1's libvirt driver")
        bad = sync_failures(log)
        check('nova-compute-b synced its provider tree: no '
              'TraitCreationFailed or ResourceProviderSyncFailed in its log',
              not bad, bad[:4])
        missing = set(new) - rp_traits(c, root_b)
        check("cloud-b's root has the %d traits of nova 2026.1's libvirt "
              "driver on Debian 12" % len(new), not missing, sorted(missing))
        got = rp_traits(c, root_a) & set(new)
        check("cloud-a's root (no such traits reported) has none of them",
              not got, sorted(got))

    step('placement and nova asked for COMPUTE_SECURITY_TPM_TIS')
    query = ('/allocation_candidates?resources=VCPU:1,MEMORY_MB:512,'
             'DISK_GB:1&required=COMPUTE_SECURITY_TPM_TIS')
    st, doc = c.admin.call('placement', 'GET', query, version='1.22',
                           expect=(200, 400))
    if reference:
        check('reference: GET /allocation_candidates?required='
              'COMPUTE_SECURITY_TPM_TIS is 400, No such trait',
              st == 400 and 'No such trait' in str(doc), '%s %s' % (st, doc))
    else:
        roots = {rp for ar in (doc or {}).get('allocation_requests', [])
                 for rp in ar['allocations']}
        check('GET /allocation_candidates?required=COMPUTE_SECURITY_TPM_TIS '
              'offers cloud-b only', st == 200 and roots == {root_b},
              '%s %s' % (st, roots))
    s = c.boot(c.demo, 'tpm', 'm1.tpm')
    made.append(s)
    if reference:
        fault = (s.get('fault') or {}).get('message', '')
        check('reference: m1.tpm ends in ERROR, NoValidHost',
              s['status'] == 'ERROR' and 'No valid host' in fault,
              '%s %s' % (s['status'], fault))
        check('reference: it holds no allocation',
              c.allocations(s['id']) == {}, c.allocations(s['id']))
    else:
        check('m1.tpm (trait:COMPUTE_SECURITY_TPM_TIS=required) is ACTIVE on '
              'cloud-b', s['status'] == 'ACTIVE' and host_of(s) == 'cloud-b',
              '%s on %s %s' % (s['status'], host_of(s), s.get('fault')))
        check('its allocation is m1.tpm against cloud-b',
              c.allocations(s['id']) == c.expected('m1.tpm', 'cloud-b'),
              c.allocations(s['id']))

    step("cloud-b's compute service disabled")
    mark = os.path.getsize(log)
    set_service(c, 'cloud-b', True)
    if reference:
        # nova-compute sets the trait through its cache of the tree,
        # which the failed sync dropped ("No such provider"), and logs
        # that its periodic task will: that task's sync fails as before.
        # (PUT /os-services answers after the compute, an RPC call.)
        def logged():
            return grep_log(log, mark, 'An error occurred while updating '
                            'COMPUTE_STATUS_DISABLED trait')
        try:
            cloudapi.wait('nova-compute-b on COMPUTE_STATUS_DISABLED',
                          logged, timeout=30, interval=1)
        except cloudapi.ApiError:
            pass
        have = rp_traits(c, root_b)
        check("reference: COMPUTE_STATUS_DISABLED does not reach cloud-b's "
              "root (nova-compute-b logs an error on it)",
              logged() and 'COMPUTE_STATUS_DISABLED' not in have,
              '%s %s' % (logged(), sorted(have)))
    else:
        try:
            cloudapi.wait('COMPUTE_STATUS_DISABLED on cloud-b', lambda:
                          'COMPUTE_STATUS_DISABLED' in rp_traits(c, root_b),
                          timeout=60, interval=1)
            disabled = True
        except cloudapi.ApiError:
            disabled = False
        check("nova puts COMPUTE_STATUS_DISABLED on cloud-b's root",
              disabled, sorted(rp_traits(c, root_b)))
        st, doc = c.admin.call('placement', 'GET',
                               query + ',!COMPUTE_STATUS_DISABLED',
                               version='1.22')
        check("placement has no candidate for nova's query (required "
              "COMPUTE_SECURITY_TPM_TIS, forbidden COMPUTE_STATUS_DISABLED)",
              st == 200 and not doc['allocation_requests'],
              doc['allocation_requests'])
    s = c.boot(c.demo, 'tpm-disabled', 'm1.tpm')
    made.append(s)
    fault = (s.get('fault') or {}).get('message', '')
    check('%sm1.tpm with cloud-b disabled ends in ERROR, NoValidHost' % tag,
          s['status'] == 'ERROR' and 'No valid host' in fault,
          '%s %s' % (s['status'], fault))
    check('%sit holds no allocation' % tag, c.allocations(s['id']) == {},
          c.allocations(s['id']))
    set_service(c, 'cloud-b', False)
    if not reference:
        try:
            cloudapi.wait('COMPUTE_STATUS_DISABLED off cloud-b', lambda:
                          'COMPUTE_STATUS_DISABLED' not in
                          rp_traits(c, root_b), timeout=60, interval=1)
            enabled = True
        except cloudapi.ApiError:
            enabled = False
        check("enabled again, cloud-b's root has no COMPUTE_STATUS_DISABLED",
              enabled, sorted(rp_traits(c, root_b)))

    if reference:
        step("cloud-b moved back to Zed's libvirt traits")
        cloud_traits.write_release(release_file, 'zed')
        s = c.boot(c.admin, 'b-zed', 'm1.tiny', host='cloud-b')
        made.append(s)
        check('reference: back on Zed traits, a server asked on cloud-b is '
              'ACTIVE with m1.tiny on cloud-b',
              s['status'] == 'ACTIVE' and
              c.allocations(s['id']) == c.expected('m1.tiny', 'cloud-b'),
              '%s %s %s' % (s['status'], c.allocations(s['id']),
                            s.get('fault')))

    step('delete')
    while made:
        c.delete(made.pop()['id'])
    left = {k: v for k, v in c.usages(c.demo.project_id).items() if v}
    left_b = {k: v for k, v in c.admin.placement(
        'GET', '/resource_providers/%s/usages' % root_b)['usages'].items()
        if v}
    check('%sthe servers of this step deleted: nothing used by demo or on '
          'cloud-b' % tag, not left and not left_b, '%s %s' % (left, left_b))


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
    if len(argv) != 3 or argv[2] not in ('main', 'traits', 'delete-host'):
        sys.stderr.write(__doc__)
        return 2
    c = Cloud(argv[1])
    try:
        if argv[2] == 'main':
            scenario_main(c)
        elif argv[2] == 'traits':
            scenario_traits(c)
        else:
            scenario_delete_host(c)
    except (cloudapi.ApiError, KeyError, TypeError, IndexError, OSError,
            ValueError, subprocess.SubprocessError) as exc:
        check('scenario ran to its end', False, repr(exc))
    print('scenario: %d passed, %d failed' % (len(PASSED), len(FAILED)))
    return 1 if FAILED else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
