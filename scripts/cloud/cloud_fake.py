"""Fake virt drivers for the cloud of scripts/cloud (make cloud).

nova.virt.fake.FakeDriver reports 1000 VCPU, 800000 MB and 600000 GB on one
provider: nothing would ever fill up. These drivers report a small host, so
that a boot that fits nowhere, a full host and the boot storm's refusals
happen, and one of them reports a child provider, so that nova asks
placement for nested candidates and writes allocations that span two
providers of one tree.

nova-compute loads them as nova.virt.<compute_driver> (compute_driver =
cloud_fake.SmallFakeDriver): scripts/cloud/service.py adds this directory
to the package nova.virt (CLOUD_NOVA_VIRT_DIR).
The sizes come from the environment of the nova-compute process
(CLOUD_VCPUS, CLOUD_MEMORY_MB, CLOUD_DISK_GB, CLOUD_VGPUS), written by
scripts/cloud/cloud.sh.

cloud-b's root provider also has the standard traits a newer nova's
libvirt driver reports (scripts/cloud/cloud_traits.py), as of the release
named in the file CLOUD_NOVA_RELEASE_FILE.
"""

import os

from nova.virt import cloud_traits
from nova.virt import fake


def _size(name, default):
    return int(os.environ.get(name, default))


class SmallFakeDriver(fake.FakeDriver):
    """A fake host of the size given in the environment."""

    vcpus = _size('CLOUD_VCPUS', 8)
    memory_mb = _size('CLOUD_MEMORY_MB', 8192)
    local_gb = _size('CLOUD_DISK_GB', 100)


class NestedFakeDriver(SmallFakeDriver):
    """A small fake host with one child provider holding VGPU inventory,
    named <node>_gpu0, as a GPU of the libvirt driver would be, and the
    libvirt traits of a newer release on its root."""

    vgpus = _size('CLOUD_VGPUS', 4)

    def update_provider_tree(self, provider_tree, nodename,
                             allocations=None):
        super().update_provider_tree(provider_tree, nodename, allocations)
        # Added to the tree as the libvirt driver does (what the host
        # supports added, the rest removed): nova's own report client then
        # syncs them, creating the traits placement lacks. The file is read
        # at every resource update (the libvirt driver computes its traits
        # once per process), so that t/cloud/scenario.py traits can move
        # the host between releases without a restart.
        on, off = cloud_traits.libvirt_traits(cloud_traits.read_release(
            os.environ.get('CLOUD_NOVA_RELEASE_FILE')))
        provider_tree.add_traits(nodename, *on)
        provider_tree.remove_traits(nodename, *off)
        child = '%s_gpu0' % nodename
        if not provider_tree.exists(child):
            provider_tree.new_child(child, nodename)
        provider_tree.update_inventory(child, {
            'VGPU': {
                'total': self.vgpus,
                'min_unit': 1,
                'max_unit': self.vgpus,
                'step_size': 1,
                'allocation_ratio': 1.0,
                'reserved': 0,
            },
        })
