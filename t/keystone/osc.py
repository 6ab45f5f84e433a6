#!/usr/bin/python3
"""The real client end to end: `openstack` (python3-openstackclient +
osc-placement) against mod_placement in keystone mode.

usage: osc.py [--reference] --work DIR

Password authentication against the private Keystone (t/keystone/run
exports its env file); mod_placement is found through the catalog: it
listens on $PL_OSC_PORT, the port the catalog's placement endpoints name
(no --os-endpoint). The commands a user would run, with -f json outputs
checked: resource provider create/list/show/set, inventory set/list,
trait create + provider trait set/list, resource class create/show,
allocation candidate list, provider allocation set/show/unset/delete,
resource usage show, provider usage show, provider delete; a project
member is refused; `openstack token issue` works. Then the noauth2 form
of the README against a noauth2 server:
  openstack --os-auth-type admin_token --os-token admin \\
            --os-endpoint http://127.0.0.1:PORT/placement resource provider list
Last line "osc: N passed, M failed". --reference: the same against
upstream placement (keystone mode) on the same port; the noauth2 part is
then served by upstream in noauth2 mode.
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ksutil  # noqa: E402

ENV = os.environ
tap = ksutil.Tap('osc')
VERSION = ['--os-placement-api-version', '1.39']
# resource usage show prints GET /usages as it comes: per class before 1.38,
# per consumer type from 1.38 on
V19 = ['--os-placement-api-version', '1.9']
CONSUMER = '4d5b2f8e-0000-4000-8000-00000000c0c1'


def clean_env():
    """The caller's OS_* variables must not change what we test."""
    return {k: v for k, v in ENV.items() if not k.startswith('OS_')}


def password_args(user='admin', password=None, project='admin'):
    if password is None:
        password = ENV['KS_ADMIN_PASSWORD']
    return ['--os-auth-url', ENV['KS_URL'] + '/v3',
            '--os-username', user, '--os-password', password,
            '--os-project-name', project,
            '--os-user-domain-name', 'Default',
            '--os-project-domain-name', 'Default',
            '--os-region-name', 'RegionOne']


def run(auth, *args, want_json=True):
    """(exit status, parsed JSON or text, stderr) of one openstack call."""
    cmd = ['openstack'] + auth + list(args)
    if want_json:
        cmd += ['-f', 'json']
    t0 = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True,
                         env=clean_env(), timeout=120)
    took = time.monotonic() - t0
    out = res.stdout
    if want_json and res.returncode == 0:
        try:
            out = json.loads(res.stdout) if res.stdout.strip() else None
        except ValueError:
            pass
    if res.returncode != 0:
        tap.note('%s -> exit %d (%.1fs): %s' % (
            ' '.join(args), res.returncode, took,
            res.stderr.strip().splitlines()[-1:] if res.stderr else ''))
    return res.returncode, out, res.stderr


def check(name, result, pred):
    rc, out, err = result
    ok = rc == 0
    why = 'exit %d: %s' % (rc, err.strip()[-300:])
    if ok:
        try:
            ok = bool(pred(out))
        except (KeyError, TypeError, IndexError, ValueError) as exc:
            ok, why = False, repr(exc)
        if not ok and why.startswith('exit'):
            why = 'output %s' % json.dumps(out)[:400]
    return tap.ok(ok, name, why)


def by(rows, key, value):
    return [r for r in rows if r.get(key) == value]


def keystone_mode(work, reference, servers):
    port = int(ENV['PL_OSC_PORT'])
    server = ksutil.Placement(
        os.path.join(work, 'keystone'), port=port,
        location=ksutil.keystone_directives(), reference=reference)
    servers.append(server)
    err = server.start()
    if not tap.ok(err is None, 'placement (keystone mode) started on the '
                  "catalog's port %d" % port, err or ''):
        return
    adm = password_args() + VERSION

    check('openstack token issue', run(password_args(), 'token', 'issue'),
          lambda o: o['id'] and o['project_id'] == ENV['KS_ADMIN_PROJECT_ID'])
    check('the catalog names placement at our port',
          run(password_args(), 'catalog', 'show', 'placement'),
          lambda o: all(e['url'] == 'http://127.0.0.1:%d/placement' % port
                        for e in o['endpoints']) and len(o['endpoints']) == 3)

    ok = check('resource provider create',
               run(adm, 'resource', 'provider', 'create', 'ks-osc-rp'),
               lambda o: o['name'] == 'ks-osc-rp' and o['generation'] == 0)
    if not ok:
        return
    rp = run(adm, 'resource', 'provider', 'list')[1][0]['uuid']
    check('resource provider list', run(adm, 'resource', 'provider', 'list'),
          lambda o: [r['name'] for r in o] == ['ks-osc-rp'])
    check('resource provider show',
          run(adm, 'resource', 'provider', 'show', rp),
          lambda o: o['uuid'] == rp and o['name'] == 'ks-osc-rp')
    check('resource provider set (rename)',
          run(adm, 'resource', 'provider', 'set', rp, '--name',
              'ks-osc-renamed'),
          lambda o: o['name'] == 'ks-osc-renamed')
    check('resource provider inventory set',
          run(adm, 'resource', 'provider', 'inventory', 'set', rp,
              '--resource', 'VCPU=8', '--resource', 'MEMORY_MB=4096',
              '--resource', 'VCPU:allocation_ratio=2.0',
              '--resource', 'DISK_GB=100'),
          lambda o: {r['resource_class'] for r in o}
          == {'VCPU', 'MEMORY_MB', 'DISK_GB'})
    check('resource provider inventory list',
          run(adm, 'resource', 'provider', 'inventory', 'list', rp),
          lambda o: by(o, 'resource_class', 'VCPU')[0]['total'] == 8
          and by(o, 'resource_class', 'VCPU')[0]['allocation_ratio'] == 2.0
          and by(o, 'resource_class', 'MEMORY_MB')[0]['total'] == 4096)
    check('trait create', run(adm, 'trait', 'create', 'CUSTOM_OSC_FAST',
                              want_json=False), lambda o: True)
    check('resource provider trait set',
          run(adm, 'resource', 'provider', 'trait', 'set', rp,
              '--trait', 'CUSTOM_OSC_FAST', '--trait', 'HW_CPU_X86_AVX2'),
          lambda o: sorted(r['name'] for r in o)
          == ['CUSTOM_OSC_FAST', 'HW_CPU_X86_AVX2'])
    check('resource provider trait list',
          run(adm, 'resource', 'provider', 'trait', 'list', rp),
          lambda o: sorted(r['name'] for r in o)
          == ['CUSTOM_OSC_FAST', 'HW_CPU_X86_AVX2'])
    check('resource class create',
          run(adm, 'resource', 'class', 'create', 'CUSTOM_OSC_GOLD',
              want_json=False), lambda o: True)
    check('resource class show',
          run(adm, 'resource', 'class', 'show', 'CUSTOM_OSC_GOLD'),
          lambda o: o['name'] == 'CUSTOM_OSC_GOLD')
    check('allocation candidate list',
          run(adm, 'allocation', 'candidate', 'list', '--resource', 'VCPU=2',
              '--required', 'CUSTOM_OSC_FAST'),
          lambda o: len(o) == 1 and o[0]['resource provider'] == rp
          and 'VCPU=2' in o[0]['allocation'])
    check('allocation candidate list, nothing fits',
          run(adm, 'allocation', 'candidate', 'list', '--resource',
              'VCPU=100'),
          lambda o: o == [])
    check('resource provider allocation set',
          run(adm, 'resource', 'provider', 'allocation', 'set', CONSUMER,
              '--allocation', 'rp=%s,VCPU=2,MEMORY_MB=512' % rp,
              '--project-id', ENV['KS_DEMO_PROJECT_ID'],
              '--user-id', ENV['KS_DEMO_MEMBER_USER_ID'],
              '--consumer-type', 'INSTANCE'),
          lambda o: o[0]['resource_provider'] == rp
          and o[0]['resources'] == {'VCPU': 2, 'MEMORY_MB': 512})
    check('resource provider allocation show',
          run(adm, 'resource', 'provider', 'allocation', 'show', CONSUMER),
          lambda o: o[0]['resources'] == {'VCPU': 2, 'MEMORY_MB': 512}
          and o[0]['project_id'] == ENV['KS_DEMO_PROJECT_ID']
          and o[0]['consumer_type'] == 'INSTANCE')
    adm19 = password_args() + V19
    check('resource usage show (the demo project, 1.9)',
          run(adm19, 'resource', 'usage', 'show', ENV['KS_DEMO_PROJECT_ID']),
          lambda o: by(o, 'resource_class', 'VCPU')[0]['usage'] == 2
          and by(o, 'resource_class', 'MEMORY_MB')[0]['usage'] == 512)
    check('resource usage show (the demo project, 1.39: per consumer type)',
          run(adm, 'resource', 'usage', 'show', ENV['KS_DEMO_PROJECT_ID']),
          lambda o: by(o, 'resource_class', 'INSTANCE')[0]['usage']
          == {'consumer_count': 1, 'VCPU': 2, 'MEMORY_MB': 512})
    check('resource provider usage show',
          run(adm, 'resource', 'provider', 'usage', 'show', rp),
          lambda o: by(o, 'resource_class', 'VCPU')[0]['usage'] == 2)
    check('resource provider allocation unset (one class)',
          run(adm, 'resource', 'provider', 'allocation', 'unset', CONSUMER,
              '--provider', rp, '--resource-class', 'MEMORY_MB'),
          lambda o: o[0]['resources'] == {'VCPU': 2})
    check('resource provider allocation show after unset',
          run(adm, 'resource', 'provider', 'allocation', 'show', CONSUMER),
          lambda o: o[0]['resources'] == {'VCPU': 2})

    # a project member: refused, and told why
    member = password_args('demo-member', ENV['KS_DEMO_MEMBER_PASSWORD'],
                           'demo') + VERSION
    rc, _, err = run(member, 'resource', 'provider', 'list')
    tap.ok(rc != 0 and 'Policy does not allow placement:resource_providers:'
           'list to be performed' in err,
           'demo-member: resource provider list is refused (403, policy)',
           'exit %d: %s' % (rc, err.strip()[-300:]))
    reader = password_args('demo-reader', ENV['KS_DEMO_READER_PASSWORD'],
                           'demo') + V19
    check('demo-reader: resource usage show of its own project',
          run(reader, 'resource', 'usage', 'show',
              ENV['KS_DEMO_PROJECT_ID']),
          lambda o: by(o, 'resource_class', 'VCPU')[0]['usage'] == 2)

    check('resource provider allocation delete',
          run(adm, 'resource', 'provider', 'allocation', 'delete', CONSUMER,
              want_json=False), lambda o: True)
    check('resource provider allocation show after delete',
          run(adm, 'resource', 'provider', 'allocation', 'show', CONSUMER),
          lambda o: o == [])
    check('resource usage show after delete',
          run(adm19, 'resource', 'usage', 'show', ENV['KS_DEMO_PROJECT_ID']),
          lambda o: o == [])
    check('resource provider delete',
          run(adm, 'resource', 'provider', 'delete', rp, want_json=False),
          lambda o: True)
    check('resource provider list after delete',
          run(adm, 'resource', 'provider', 'list'), lambda o: o == [])


def noauth2_mode(work, reference, servers):
    os.environ['REF_AUTH_STRATEGY'] = 'noauth2'  # reference-placement.sh
    try:
        server = ksutil.Placement(os.path.join(work, 'noauth2'),
                                  reference=reference)
        servers.append(server)
        err = server.start()
    finally:
        del os.environ['REF_AUTH_STRATEGY']
    if not tap.ok(err is None, 'placement (noauth2) started', err or ''):
        return
    auth = ['--os-auth-type', 'admin_token', '--os-token', 'admin',
            '--os-endpoint', server.url]
    check('noauth2: resource provider list (admin_token, --os-endpoint)',
          run(auth, 'resource', 'provider', 'list'), lambda o: o == [])
    check('noauth2: resource provider create',
          run(auth, 'resource', 'provider', 'create', 'ks-noauth-rp'),
          lambda o: o['name'] == 'ks-noauth-rp')
    check('noauth2: resource provider list shows it',
          run(auth + VERSION, 'resource', 'provider', 'list'),
          lambda o: [r['name'] for r in o] == ['ks-noauth-rp'])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--reference', action='store_true')
    ap.add_argument('--work', required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    servers = []
    try:
        keystone_mode(args.work, args.reference, servers)
        servers[-1].stop()
        noauth2_mode(args.work, args.reference, servers)
        servers[-1].stop()
    except KeyboardInterrupt:
        tap.ok(False, 'interrupted')
        return 130
    finally:
        for s in servers:
            s.stop()
    crashes = [ln for s in servers for ln in s.bad_log_lines()]
    tap.ok(not crashes, 'clean error logs', ' | '.join(crashes[:3]))
    return tap.summary()


if __name__ == '__main__':
    sys.exit(main())
