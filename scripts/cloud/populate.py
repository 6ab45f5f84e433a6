#!/usr/bin/python3
"""First contents of the cloud of scripts/cloud: flavors, an image, both
hosts known to nova and to placement.

    populate.py DIR

Flavors: m1.tiny (1 VCPU, 512 MB, 1 GB), m1.small (2, 2048, 10), m1.medium (4, 4096,
20), m1.vgpu
(1, 1024, 10 and resources:VGPU=1, which only cloud-b's child provider has),
m1.huge (12 VCPU: fits nowhere, within the default quota), m1.tpm (1, 512,
1 and trait:COMPUTE_SECURITY_TPM_TIS=required, which only cloud-b reports,
as nova 2024.2+ does: scripts/cloud/cloud_traits.py). Image cloud-image: a few bytes, raw,
public (the fake driver never reads it). Returns once the scheduler has
mapped both computes, neutron has answered once into the cell (nova's hypervisor list has cloud-a
and cloud-b) and placement has their three providers with inventory.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cloudapi  # noqa: E402

FLAVORS = (
    # name, vcpus, ram MB, disk GB, extra specs
    ('m1.tiny', 1, 512, 1, {}),
    ('m1.small', 2, 2048, 10, {}),
    ('m1.medium', 4, 4096, 20, {}),
    ('m1.vgpu', 1, 1024, 10, {'resources:VGPU': '1'}),
    ('m1.huge', 12, 4096, 10, {}),
    ('m1.tpm', 1, 512, 1, {'trait:COMPUTE_SECURITY_TPM_TIS': 'required'}),
)


def main(cloud_dir):
    env = cloudapi.read_env(cloud_dir)
    admin = cloudapi.Client(env, 'admin', 'admin')
    # neutron-server 21 (Zed) with no agent: its first GET /v2.0/ports in a
    # process fails (500, Port has no attribute port_forwardings) until some
    # other query has made SQLAlchemy configure its mappers; one network
    # list does that in its (single) API worker
    admin.call('network', 'GET', '/v2.0/networks')
    have = {f['name'] for f in admin.nova('GET', '/flavors')['flavors']}
    for name, vcpus, ram, disk, specs in FLAVORS:
        if name in have:
            continue
        flavor = admin.nova('POST', '/flavors', {'flavor': {
            'name': name, 'vcpus': vcpus, 'ram': ram, 'disk': disk}})
        if specs:
            # 2.85: from 2.86 this nova API (Zed) checks trait: names
            # against its os-traits (2.9.0, without
            # COMPUTE_SECURITY_TPM_TIS); a 2024.2+ API knows the name
            admin.nova('POST', '/flavors/%s/os-extra_specs'
                       % flavor['flavor']['id'], {'extra_specs': specs},
                       version='2.85')
    images = admin.call('image', 'GET', '/v2/images?name=cloud-image')[1]
    if not images['images']:
        _, image = admin.call('image', 'POST', '/v2/images', {
            'name': 'cloud-image', 'disk_format': 'raw',
            'container_format': 'bare', 'visibility': 'public'},
            expect=(201,))
        resp = admin.sess.put(
            '/v2/images/%s/file' % image['id'], data=b'mod_placement cloud\n',
            headers={'Content-Type': 'application/octet-stream'},
            endpoint_filter={'service_type': 'image', 'interface': 'public'})
        if resp.status_code != 204:
            raise cloudapi.ApiError('image upload: %d' % resp.status_code)

    def hosts_mapped():
        hvs = admin.nova('GET', '/os-hypervisors')['hypervisors']
        return {h['hypervisor_hostname'] for h in hvs} >= {'cloud-a',
                                                           'cloud-b'}
    cloudapi.wait('both computes in nova', hosts_mapped, timeout=180)

    def providers_ready():
        rps = admin.placement('GET', '/resource_providers')
        names = {rp['name']: rp['uuid'] for rp in rps['resource_providers']}
        if not {'cloud-a', 'cloud-b', 'cloud-b_gpu0'} <= set(names):
            return False
        return all(admin.placement('GET', '/resource_providers/%s/inventories'
                                   % names[n])['inventories']
                   for n in ('cloud-a', 'cloud-b', 'cloud-b_gpu0'))
    cloudapi.wait('the providers in placement', providers_ready, timeout=180)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    try:
        main(sys.argv[1])
    except (cloudapi.ApiError, OSError, KeyError) as exc:
        sys.stderr.write('populate: %s\n' % exc)
        sys.exit(1)
