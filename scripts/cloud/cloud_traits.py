"""The standard traits newer nova releases report from their libvirt
driver, for cloud-b's fake driver (scripts/cloud/cloud_fake.py) and the
test that checks them (t/cloud/scenario.py traits), issue 34.

No import of nova here: the test imports this too. nova-compute finds it
as nova.virt.cloud_traits (scripts/cloud/service.py adds this directory to
the package nova.virt).
"""

import os
import re

# The standard traits nova's libvirt driver reports on a Debian 12 host
# (libvirt 9.0.0, QEMU 7.2, x86_64, [libvirt] swtpm_enabled = True) that
# os-traits 2.9.0 does not have, by the nova release that started to report
# them (read in nova's stable branches: nova/virt/libvirt/driver.py and
# CAPABILITY_TRAITS_MAP in nova/virt/driver.py). 2.9.0 is Debian 12's
# python3-os-traits: the list of nova Zed, which this cloud runs, and of
# upstream placement 8.0.0. A compute of such a release PUTs /traits/<name>
# for each name GET /traits?name=in:... did not return; placement 8.0.0
# answers 400 to a name without CUSTOM_, so that compute's provider sync
# fails (TraitCreationFailed, then ResourceProviderSyncFailed).
# mod_placement ships os-traits 3.9.0's list, which has them all.
LIBVIRT_TRAITS = (
    # 2023.2: guest physical address bits (maxphysaddr, libvirt >= 8.7.0);
    # nova reports them as driver capabilities
    ('2023.2', ('COMPUTE_ADDRESS_SPACE_EMULATED',
                'COMPUTE_ADDRESS_SPACE_PASSTHROUGH')),
    # 2024.1: packed virtqueues, on every host
    ('2024.1', ('COMPUTE_NET_VIRTIO_PACKED',)),
    # 2024.2: the TPM models of libvirt's domain capabilities (x86_64 has
    # both); stateless firmware (libvirt >= 8.6.0, a capability)
    ('2024.2', ('COMPUTE_SECURITY_TPM_TIS',
                'COMPUTE_SECURITY_TPM_CRB',
                'COMPUTE_SECURITY_STATELESS_FIRMWARE')),
    # 2025.2: sound models; COMPUTE_SOUND_MODEL_VIRTIO needs libvirt 10.4.0
    # and QEMU 8.2.0, so a Debian 12 host does not report it
    ('2025.2', ('COMPUTE_SOUND_MODEL_AC97',
                'COMPUTE_SOUND_MODEL_ES1370',
                'COMPUTE_SOUND_MODEL_ICH6',
                'COMPUTE_SOUND_MODEL_ICH9',
                'COMPUTE_SOUND_MODEL_PCSPK',
                'COMPUTE_SOUND_MODEL_SB16',
                'COMPUTE_SOUND_MODEL_USB')),
    # 2026.1: the vTPM secret policies of [libvirt]
    # supported_tpm_secret_security (default: all three)
    ('2026.1', ('COMPUTE_SECURITY_TPM_SECRET_SECURITY_USER',
                'COMPUTE_SECURITY_TPM_SECRET_SECURITY_HOST',
                'COMPUTE_SECURITY_TPM_SECRET_SECURITY_DEPLOYMENT')),
)

RELEASE_RE = r'zed|20[0-9]{2}\.[12]'


def read_release(path):
    """The release named in the file path ("zed" when path is None)."""
    if not path:
        return 'zed'
    with open(path, encoding='utf-8') as fh:
        release = fh.read().strip()
    if not re.fullmatch(RELEASE_RE, release):
        raise ValueError('%s: not a nova release: %r' % (path, release))
    return release


def write_release(path, release):
    """Name release in the file path (replaced whole: the driver may read
    it at any time)."""
    if not re.fullmatch(RELEASE_RE, release):
        raise ValueError('not a nova release: %r' % release)
    tmp = '%s.tmp' % path
    with open(tmp, 'w', encoding='utf-8') as fh:
        fh.write(release + '\n')
    os.replace(tmp, path)


def libvirt_traits(release):
    """(reported, not reported): the names of LIBVIRT_TRAITS split for a
    host of release."""
    on, off = [], []
    for since, traits in LIBVIRT_TRAITS:
        # "2023.2" <= "2026.1" as strings; "zed" (2022.2) precedes them all
        (on if release != 'zed' and since <= release else off).extend(traits)
    return on, off
