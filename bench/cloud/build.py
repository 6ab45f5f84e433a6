#!/usr/bin/python3
"""Write a nova (libvirt, 2026.1) + neutron (Open vSwitch agent) cloud
straight into a PostgreSQL Placement database, and the description of it
that the load generator (bench/cloud/cloudload) reads.

    bench/cloud/build.py N --sql FILE.sql --desc FILE.desc [--fill 0.5]
        [--seed 42] [--ironic-fraction 0.1] [--pci-fraction 0.1]
        [--projects P] [--users-per-project U] [--bfv-fraction 0.5]

    psql -v ON_ERROR_STOP=1 ... -f FILE.sql

The cloud, the same for the same arguments:
  * N compute nodes 'cmp-NNNNN' (uuid5 of NS and the hostname): VCPU 64
    (ratio 4.0), MEMORY_MB 262144 (512 reserved), DISK_GB 2000; about 80
    traits (COMPUTE_NODE, the x86 CPU flags and COMPUTE_* capabilities
    nova's libvirt driver reports; TPM traits on every other host;
    COMPUTE_STATUS_DISABLED on 1 in 50); an AZ aggregate per 500 hosts and
    a rack aggregate per 40.
  * under each, neutron's '<host>:Open vSwitch agent' (packet rate) and one
    bridge '<host>:Open vSwitch agent:br-phy0' (two on 1 host in 10) with
    NET_BW_EGR/IGR_KILOBIT_PER_SEC and the physnet and vnic-type traits.
  * --pci-fraction of the hosts: 2-4 GPUs '<host>_0000:8x:00.0' as children
    (nova's [pci]report_in_placement), class CUSTOM_PCI_10DE_<product>.
  * --ironic-fraction x N Ironic nodes (own trees, CUSTOM_BAREMETAL_*,
    1 in 20 cleaning: reserved = total = 1), 80% of the others in use.
  * the description: CN (compute index, root, its tree), AG (its
    aggregates), NB (its host name, neutron agent and bridge providers, for
    neutron's resync), IN (instance, project, user, the compute index of
    its host or -1 on Ironic), PU, FL, AZ, IR records, and NT (the
    traits a brand-new compute reports).
  * instances on the computes up to --fill of their VCPU capacity; each
    host's target is fill x U(0.5, 1.5) of it, so that some hosts have room
    and some are full, and no host goes over any class: MEMORY_MB (flavors
    have 2 GiB per vCPU) binds near fill 0.5. --bfv-fraction of them boot
    from volume (no DISK_GB, as nova allocates them); 1 in 10 has a QoS
    port (1000 kbps each way on a bridge of its host).
Generations are those the API would leave: a provider starts at 0 and each
inventory, trait and aggregate PUT and each allocation write touching it
bumps it; every consumer has written its allocations once (generation 1).

The standard resource classes and traits must already be in the database
(the server inserts them at its first request); custom ones are created as
the API would (custom resource class ids from 10000).
"""
import argparse
import os
import random
import sys
import time
import uuid

NS = uuid.UUID('6d1c4d6b-3f0e-4a55-9a0c-2f4d8f1b7c31')
HERE = os.path.dirname(os.path.abspath(__file__))
TRAITS_TXT = os.path.join(HERE, '..', '..', 'sql', 'traits.txt')

VCPU, RAM, DISK = 64, 262144, 2000
VCPU_RATIO, RAM_RESERVED = 4.0, 512
VCPU_CAP = int(VCPU * VCPU_RATIO)
RAM_CAP = RAM - RAM_RESERVED
BW_TOTAL = 10000000
PPS_TOTAL = 1000000
QOS_BW = 1000

FLAVORS = [  # name, vcpu, ram_mb, disk_gb, required traits
    ('m1.small', 1, 2048, 20, '-'),
    ('m1.medium', 2, 4096, 40, '-'),
    ('m1.large', 4, 8192, 80, '-'),
    ('m1.xlarge', 8, 16384, 160, '-'),
    ('m1.tpm', 2, 4096, 40, 'COMPUTE_SECURITY_TPM_TIS'),
]
FILL_FLAVORS = FLAVORS[:4]

CPU_TRAITS = ['HW_CPU_X86_' + f for f in (
    'SSE', 'SSE2', 'SSE3', 'SSSE3', 'SSE41', 'SSE42', 'AVX', 'AVX2', 'AESNI',
    'FMA3', 'BMI', 'BMI2', 'MMX', 'CLMUL', 'F16C', 'ABM', 'PDPE1GB', 'SHA',
    'VMX', 'INTEL_PCID', 'INTEL_SPEC_CTRL', 'INTEL_SSBD', 'INTEL_MD_CLEAR',
    'STIBP', 'AVX512F', 'AVX512CD', 'AVX512BW', 'AVX512DQ', 'AVX512VL',
    'AVX512VNNI')]
COMPUTE_TRAITS = ['COMPUTE_' + t for t in (
    'NODE', 'ARCH_X86_64', 'DEVICE_TAGGING', 'TRUSTED_CERTS',
    'RESCUE_BFV', 'SAME_HOST_COLD_MIGRATE',
    'NET_ATTACH_INTERFACE', 'NET_ATTACH_INTERFACE_WITH_TAG',
    'VOLUME_ATTACH_WITH_TAG', 'VOLUME_EXTEND', 'VOLUME_MULTI_ATTACH',
    'IMAGE_TYPE_AKI', 'IMAGE_TYPE_AMI', 'IMAGE_TYPE_ARI', 'IMAGE_TYPE_ISO',
    'IMAGE_TYPE_QCOW2', 'IMAGE_TYPE_RAW',
    'NET_VIF_MODEL_E1000', 'NET_VIF_MODEL_E1000E', 'NET_VIF_MODEL_NE2K_PCI',
    'NET_VIF_MODEL_PCNET', 'NET_VIF_MODEL_RTL8139', 'NET_VIF_MODEL_VIRTIO',
    'NET_VIF_MODEL_VMXNET3', 'NET_VIF_MODEL_IGB', 'NET_VIRTIO_PACKED',
    'STORAGE_BUS_FDC', 'STORAGE_BUS_IDE', 'STORAGE_BUS_SATA',
    'STORAGE_BUS_SCSI', 'STORAGE_BUS_USB', 'STORAGE_BUS_VIRTIO',
    'GRAPHICS_MODEL_BOCHS', 'GRAPHICS_MODEL_CIRRUS', 'GRAPHICS_MODEL_NONE',
    'GRAPHICS_MODEL_QXL', 'GRAPHICS_MODEL_VGA', 'GRAPHICS_MODEL_VIRTIO',
    'SOUND_MODEL_AC97', 'SOUND_MODEL_ES1370', 'SOUND_MODEL_ICH6',
    'SOUND_MODEL_ICH9', 'SOUND_MODEL_PCSPK', 'SOUND_MODEL_SB16',
    'SOUND_MODEL_USB', 'SOUND_MODEL_VIRTIO',
    'ADDRESS_SPACE_EMULATED', 'ADDRESS_SPACE_PASSTHROUGH',
    'FIRMWARE_BIOS', 'FIRMWARE_UEFI', 'SECURITY_UEFI_SECURE_BOOT',
    'USB_MODEL_NEC_XHCI', 'USB_MODEL_QEMU_XHCI')]
TPM_TRAITS = ['COMPUTE_SECURITY_TPM_' + t for t in
              ('1_2', '2_0', 'TIS', 'CRB')]
VNIC_TRAITS = ['CUSTOM_VNIC_TYPE_NORMAL', 'CUSTOM_VNIC_TYPE_DIRECT']
PCI_PRODUCTS = ['CUSTOM_PCI_10DE_20B5', 'CUSTOM_PCI_10DE_2236',
                'CUSTOM_PCI_10DE_1EB8']
IRONIC_CLASSES = ['CUSTOM_BAREMETAL_GOLD', 'CUSTOM_BAREMETAL_SILVER',
                  'CUSTOM_BAREMETAL_BRONZE']


def fast_uuid(rng):
    """A version-4 uuid from the seeded generator (uuid.uuid4 is not
    reproducible, uuid5 is slow for a million consumers)."""
    x = rng.getrandbits(128)
    x = (x & ~(0xf000 << 64)) | (0x4000 << 64)
    x = (x & ~(0xc000 << 48)) | (0x8000 << 48)
    h = '%032x' % x
    return '%s-%s-%s-%s-%s' % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def trait_sets():
    """Numbered trait sets: providers get one set each (few distinct sets,
    so the SQL stays small however many providers there are)."""
    base = CPU_TRAITS + COMPUTE_TRAITS
    sets = {
        1: base,                                             # compute
        2: base + TPM_TRAITS,                                # compute + TPM
        3: base + ['COMPUTE_STATUS_DISABLED'],
        4: base + TPM_TRAITS + ['COMPUTE_STATUS_DISABLED'],
        5: VNIC_TRAITS,                                      # agent
        6: ['CUSTOM_PHYSNET_PHYSNET0'] + VNIC_TRAITS,        # br-phy0
        7: ['CUSTOM_PHYSNET_PHYSNET1'] + VNIC_TRAITS,        # br-phy1
        8: ['CUSTOM_PCI_GPU'],                               # GPU
        9: ['COMPUTE_NODE'],                                 # Ironic node
    }
    known = set()
    with open(TRAITS_TXT) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith('#'):
                known.add(line)
    for s in sets.values():
        assert len(s) == len(set(s)), s
        for t in s:
            if not t.startswith('CUSTOM_') and t not in known:
                sys.exit('build.py: %s is not a standard trait (%s)' % (t, TRAITS_TXT))
    return sets


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('n', type=int, help='compute hosts')
    ap.add_argument('--sql', required=True)
    ap.add_argument('--desc', required=True)
    ap.add_argument('--fill', type=float, default=0.5,
                    help='target fraction of VCPU capacity (ratio 4.0) in use')
    ap.add_argument('--seed', type=int, default=42)
    ap.add_argument('--ironic-fraction', type=float, default=0.1)
    ap.add_argument('--pci-fraction', type=float, default=0.1)
    ap.add_argument('--projects', type=int, default=None,
                    help='default N/10, at least 10')
    ap.add_argument('--users-per-project', type=int, default=5)
    ap.add_argument('--bfv-fraction', type=float, default=0.5,
                    help='instances booted from volume (no DISK_GB)')
    a = ap.parse_args()
    if a.n < 1:
        ap.error('N must be at least 1')
    t0 = time.time()
    rng = random.Random(a.seed)
    sets = trait_sets()
    n = a.n
    nproj = a.projects if a.projects is not None else max(10, n // 10)
    nusers = a.users_per_project

    # projects and users: keystone-like 32-hex ids
    pu = []
    for p in range(nproj):
        proj = uuid.uuid5(NS, 'project-%d' % p).hex
        for u in range(nusers):
            pu.append((proj, uuid.uuid5(NS, 'user-%d-%d' % (p, u)).hex))
    npu = len(pu)

    n_az = max(1, n // 500)
    az_uuids = [str(uuid.uuid5(NS, 'az-%d' % z)) for z in range(n_az)]

    rp_rows = []      # ord uuid name parent root gen
    inv_rows = []     # ord rc total reserved max_unit ratio
    set_rows = []     # ord set
    agg_rows = []     # ord agg
    inst_rows = []    # uuid pu rp vcpu ram disk dev irc
    desc = ['N %d\n' % n]
    desc_in = []
    ords = [0]

    def provider(u, name, parent, root, gen):
        o = ords[0]
        ords[0] += 1
        rp_rows.append('%d\t%s\t%s\t%s\t%d\t%d\n' % (
            o, u, name, '\\N' if parent is None else parent,
            o if root is None else root, gen))
        return o

    def inv(o, rc, total, reserved=0, max_unit=None, ratio=1.0):
        inv_rows.append('%d\t%s\t%d\t%d\t%d\t%r\n' % (
            o, rc, total, reserved, total if max_unit is None else max_unit,
            ratio))

    used_v = used_m = used_d = 0
    n_inst = n_alloc = n_qos = n_pci = 0
    flavors_desc = FILL_FLAVORS[::-1]   # largest first when falling back
    for i in range(n):
        host = 'cmp-%05d' % i
        cn = str(uuid.uuid5(NS, host))
        agent = str(uuid.uuid5(uuid.UUID(cn), 'Open vSwitch agent'))
        ndev = 2 if i % 10 == 0 else 1
        devs = [str(uuid.uuid5(uuid.UUID(agent), 'br-phy%d' % d))
                for d in range(ndev)]
        pci = []
        if rng.random() < a.pci_fraction:
            prod = PCI_PRODUCTS[rng.randrange(len(PCI_PRODUCTS))]
            for k in range(rng.randint(2, 4)):
                addr = '0000:%02x:00.0' % (0x81 + k)
                pci.append((str(uuid.uuid5(uuid.UUID(cn), addr)), addr, prod))

        # the instances first: they decide the generations
        target = a.fill * VCPU_CAP * rng.uniform(0.5, 1.5)
        v = m = d = 0
        mine = []   # (uuid, pu, vcpu, ram, disk, dev index or None)
        bw = [0] * ndev
        while True:
            k = rng.randrange(len(FILL_FLAVORS))
            bfv = rng.random() < a.bfv_fraction
            chosen = None
            for _, fv, fm, fd, _ in flavors_desc[len(FILL_FLAVORS) - 1 - k:]:
                fd = 0 if bfv else fd
                if (v + fv <= target and v + fv <= VCPU_CAP
                        and m + fm <= RAM_CAP and d + fd <= DISK):
                    chosen = (fv, fm, fd)
                    break
            if chosen is None:
                break
            fv, fm, fd = chosen
            v, m, d = v + fv, m + fm, d + fd
            dev = None
            if rng.random() < 0.1:
                dev = rng.randrange(ndev)
                if bw[dev] + QOS_BW > BW_TOTAL:
                    dev = None
                else:
                    bw[dev] += QOS_BW
            mine.append((fast_uuid(rng), rng.randrange(npu), fv, fm, fd, dev))
        used_v, used_m, used_d = used_v + v, used_m + m, used_d + d

        # compute node: create, PUT inventory, PUT traits, 2 aggregate PUTs
        # (nova-api adds the host to its AZ and its rack one at a time),
        # one allocation write per instance
        o_cn = provider(cn, host, None, None, 4 + len(mine))
        inv(o_cn, 'VCPU', VCPU, 0, VCPU, VCPU_RATIO)
        inv(o_cn, 'MEMORY_MB', RAM, RAM_RESERVED, RAM, 1.0)
        inv(o_cn, 'DISK_GB', DISK, 0, DISK, 1.0)
        tpm = i % 2 == 0
        disabled = i % 50 == 49
        set_rows.append('%d\t%d\n' % (o_cn, 1 + (1 if tpm else 0) + (2 if disabled else 0)))
        aggs = [az_uuids[i * n_az // n], str(uuid.uuid5(NS, 'rack-%d' % (i // 40)))]
        for ag in aggs:
            agg_rows.append('%d\t%s\n' % (o_cn, ag))
        # neutron: agent (create, inventory, traits), bridges likewise plus
        # one allocation write per QoS port on them
        o_ag = provider(agent, host + ':Open vSwitch agent', o_cn, o_cn, 2)
        inv(o_ag, 'NET_PACKET_RATE_KILOPACKET_PER_SEC', PPS_TOTAL)
        set_rows.append('%d\t5\n' % o_ag)
        o_devs = []
        for dn, du in enumerate(devs):
            nq = sum(1 for x in mine if x[5] == dn)
            o = provider(du, '%s:Open vSwitch agent:br-phy%d' % (host, dn),
                         o_ag, o_cn, 2 + nq)
            inv(o, 'NET_BW_EGR_KILOBIT_PER_SEC', BW_TOTAL)
            inv(o, 'NET_BW_IGR_KILOBIT_PER_SEC', BW_TOTAL)
            set_rows.append('%d\t%d\n' % (o, 6 + dn))
            o_devs.append(o)
        for pu_, addr, prod in pci:
            o = provider(pu_, '%s_%s' % (host, addr), o_cn, o_cn, 2)
            inv(o, prod, 1, 0, 1)
            set_rows.append('%d\t8\n' % o)
            n_pci += 1
        for cu, p, fv, fm, fd, dev in mine:
            inst_rows.append('%s\t%d\t%d\t%d\t%d\t%d\t%s\t\\N\n' % (
                cu, p, o_cn, fv, fm, fd, '\\N' if dev is None else o_devs[dev]))
            desc_in.append('IN %s %s %s %d\n' % (cu, pu[p][0], pu[p][1], i))
            n_alloc += 2 + (fd > 0) + (2 if dev is not None else 0)
            n_qos += dev is not None
        n_inst += len(mine)
        tree = [cn, agent] + devs + [x[0] for x in pci]
        desc.append('CN %d %s %d %s\n' % (i, cn, len(tree), ' '.join(tree)))
        desc.append('AG %s %s\n' % (cn, ','.join(aggs)))
        desc.append('NB %s %s %s %s\n' % (cn, host, agent, ' '.join(devs)))

    # Ironic: one provider per node, its own tree
    n_ir = int(round(a.ironic_fraction * n))
    n_ir_used = 0
    desc_ir = []
    for j in range(n_ir):
        nu = str(uuid.uuid5(NS, 'ironic-%d' % j))
        rc = IRONIC_CLASSES[j % 3]
        cleaning = j % 20 == 19
        used = not cleaning and rng.random() < 0.8
        o = provider(nu, nu, None, None, 2 + (1 if used else 0))
        inv(o, rc, 1, 1 if cleaning else 0, 1)
        set_rows.append('%d\t9\n' % o)
        desc_ir.append('IR %s %s\n' % (nu, rc))
        if used:
            cu = fast_uuid(rng)
            p = rng.randrange(npu)
            inst_rows.append('%s\t%d\t%d\t\\N\t\\N\t\\N\t\\N\t%s\n' % (cu, p, o, rc))
            desc_in.append('IN %s %s %s -1\n' % (cu, pu[p][0], pu[p][1]))
            n_ir_used += 1
            n_alloc += 1

    with open(a.desc, 'w') as f:
        f.writelines(desc)
        f.writelines('PU %s %s\n' % x for x in pu)
        f.writelines(desc_in)
        f.writelines('FL %s %d %d %d %s\n' % x for x in FLAVORS)
        f.writelines('AZ %s\n' % z for z in az_uuids)
        f.writelines(desc_ir)
        # the traits a brand-new libvirt compute reports (cloudload's
        # --new-computes)
        f.write('NT %s\n' % ','.join(CPU_TRAITS + COMPUTE_TRAITS))

    with open(a.sql, 'w') as f:
        write_sql(f, sets, rp_rows, inv_rows, set_rows, agg_rows, pu, inst_rows)

    nprov = ords[0]
    sys.stderr.write(
        'build.py: %d computes, %d providers (%d GPU, %d Ironic), %d instances '
        '(%d on Ironic, %d with a QoS port), %d allocations, %d projects x %d users; '
        'fill VCPU %.3f (target %.3f) MEMORY_MB %.3f DISK_GB %.3f; %.1f s\n' % (
            n, nprov, n_pci, n_ir, n_inst + n_ir_used, n_ir_used, n_qos, n_alloc,
            nproj, nusers, used_v / (n * VCPU_CAP), a.fill, used_m / (n * RAM_CAP),
            used_d / (n * DISK), time.time() - t0))


NOW = "(now() AT TIME ZONE 'UTC')"


def copy(f, table, rows):
    f.write('COPY %s FROM STDIN;\n' % table)
    f.writelines(rows)
    f.write('\\.\n')


def write_sql(f, sets, rp_rows, inv_rows, set_rows, agg_rows, pu, inst_rows):
    f.write("""-- Written by bench/cloud/build.py: a nova + neutron cloud. Needs the
-- standard resource classes and traits (the server's first request).
BEGIN;
CREATE TEMP TABLE s_rp (ord int PRIMARY KEY, uuid text, name text, parent int,
                        root int, gen int) ON COMMIT DROP;
CREATE TEMP TABLE s_inv (rp int, rc text, total int, reserved int, max_unit int,
                         ratio float8) ON COMMIT DROP;
CREATE TEMP TABLE s_tset (set int, trait text) ON COMMIT DROP;
CREATE TEMP TABLE s_rpt (rp int, set int) ON COMMIT DROP;
CREATE TEMP TABLE s_agg (rp int, agg text) ON COMMIT DROP;
CREATE TEMP TABLE s_pu (pu int PRIMARY KEY, proj text, usr text) ON COMMIT DROP;
CREATE TEMP TABLE s_inst (uuid text, pu int, rp int, vcpu int, ram int, disk int,
                          dev int, irc text) ON COMMIT DROP;
""")
    copy(f, 's_rp', rp_rows)
    copy(f, 's_inv', inv_rows)
    copy(f, 's_tset', ['%d\t%s\n' % (k, t) for k, v in sorted(sets.items()) for t in v])
    copy(f, 's_rpt', set_rows)
    copy(f, 's_agg', agg_rows)
    copy(f, 's_pu', ['%d\t%s\t%s\n' % (k, p, u) for k, (p, u) in enumerate(pu)])
    copy(f, 's_inst', inst_rows)
    f.write("""
DO $$
BEGIN
  IF (SELECT count(*) FROM resource_classes WHERE name = 'VCPU') = 0
     OR (SELECT count(*) FROM traits WHERE name = 'COMPUTE_NODE') = 0 THEN
    RAISE EXCEPTION 'standard resource classes and traits missing (make one request to the server first)';
  END IF;
END $$;
ANALYZE s_rp; ANALYZE s_inv; ANALYZE s_inst;
INSERT INTO resource_providers (created_at, uuid, name, generation)
  SELECT {now}, uuid, name, gen FROM s_rp ORDER BY ord;
CREATE TEMP TABLE s_id ON COMMIT DROP AS
  SELECT s.ord, rp.id FROM s_rp s JOIN resource_providers rp ON rp.uuid = s.uuid;
ALTER TABLE s_id ADD PRIMARY KEY (ord);
ANALYZE s_id;
UPDATE resource_providers r SET root_provider_id = ri.id, parent_provider_id = pi.id
  FROM s_rp s JOIN s_id me ON me.ord = s.ord JOIN s_id ri ON ri.ord = s.root
  LEFT JOIN s_id pi ON pi.ord = s.parent
  WHERE r.id = me.id;
-- custom resource classes as the API creates them: ids from 10000 up
INSERT INTO resource_classes (id, name, created_at)
  SELECT (SELECT COALESCE(MAX(id), 9999) FROM resource_classes WHERE id >= 10000)
         + row_number() OVER (ORDER BY n.rc), n.rc, {now}
  FROM (SELECT DISTINCT rc FROM s_inv WHERE rc LIKE 'CUSTOM\\_%') n
  WHERE NOT EXISTS (SELECT 1 FROM resource_classes c WHERE c.name = n.rc);
INSERT INTO inventories (created_at, resource_provider_id, resource_class_id, total,
                         reserved, min_unit, max_unit, step_size, allocation_ratio)
  SELECT {now}, i.id, rc.id, s.total, s.reserved, 1, s.max_unit, 1, s.ratio
  FROM s_inv s JOIN s_id i ON i.ord = s.rp JOIN resource_classes rc ON rc.name = s.rc;
INSERT INTO traits (created_at, name)
  SELECT DISTINCT {now}, trait FROM s_tset WHERE trait LIKE 'CUSTOM\\_%'
  ON CONFLICT (name) DO NOTHING;
INSERT INTO resource_provider_traits (created_at, trait_id, resource_provider_id)
  SELECT {now}, t.id, i.id FROM s_rpt r JOIN s_id i ON i.ord = r.rp
  JOIN s_tset ts ON ts.set = r.set JOIN traits t ON t.name = ts.trait;
INSERT INTO placement_aggregates (created_at, uuid)
  SELECT DISTINCT {now}, agg FROM s_agg ON CONFLICT (uuid) DO NOTHING;
INSERT INTO resource_provider_aggregates (created_at, resource_provider_id, aggregate_id)
  SELECT {now}, i.id, pa.id FROM s_agg s JOIN s_id i ON i.ord = s.rp
  JOIN placement_aggregates pa ON pa.uuid = s.agg;
INSERT INTO projects (external_id, created_at)
  SELECT DISTINCT proj, {now} FROM s_pu ON CONFLICT DO NOTHING;
INSERT INTO users (external_id, created_at)
  SELECT DISTINCT usr, {now} FROM s_pu ON CONFLICT DO NOTHING;
INSERT INTO consumer_types (name, created_at)
  VALUES ('INSTANCE', {now}), ('MIGRATION', {now}) ON CONFLICT DO NOTHING;
INSERT INTO consumers (uuid, project_id, user_id, generation, consumer_type_id, created_at)
  SELECT s.uuid, p.id, u.id, 1, ct.id, {now}
  FROM s_inst s JOIN s_pu x ON x.pu = s.pu
  JOIN projects p ON p.external_id = x.proj JOIN users u ON u.external_id = x.usr
  JOIN consumer_types ct ON ct.name = 'INSTANCE';
INSERT INTO allocations (resource_provider_id, consumer_id, resource_class_id, used, created_at)
  SELECT i.id, a.uuid, rc.id, a.used, {now}
  FROM (SELECT s.uuid, s.rp, v.rc, v.used FROM s_inst s
        CROSS JOIN LATERAL (VALUES ('VCPU', s.vcpu), ('MEMORY_MB', s.ram),
                                   ('DISK_GB', s.disk)) v(rc, used)
        WHERE s.irc IS NULL AND v.used > 0
        UNION ALL
        SELECT s.uuid, s.dev, v.rc, {bw} FROM s_inst s
        CROSS JOIN (VALUES ('NET_BW_EGR_KILOBIT_PER_SEC'),
                           ('NET_BW_IGR_KILOBIT_PER_SEC')) v(rc)
        WHERE s.dev IS NOT NULL
        UNION ALL
        SELECT s.uuid, s.rp, s.irc, 1 FROM s_inst s WHERE s.irc IS NOT NULL) a
  JOIN s_id i ON i.ord = a.rp JOIN resource_classes rc ON rc.name = a.rc;
DO $$
DECLARE
  want_inv bigint := (SELECT count(*) FROM s_inv);
  got_inv bigint := (SELECT count(*) FROM inventories inv JOIN s_id i ON i.id = inv.resource_provider_id);
  want_tr bigint := (SELECT count(*) FROM s_rpt r JOIN s_tset t ON t.set = r.set);
  got_tr bigint := (SELECT count(*) FROM resource_provider_traits rt JOIN s_id i ON i.id = rt.resource_provider_id);
  want_c bigint := (SELECT count(*) FROM s_inst);
  got_c bigint := (SELECT count(*) FROM consumers c JOIN s_inst s ON s.uuid = c.uuid);
BEGIN
  IF want_inv <> got_inv THEN
    RAISE EXCEPTION 'inventories: % staged, % inserted (unknown resource class?)', want_inv, got_inv;
  END IF;
  IF want_tr <> got_tr THEN
    RAISE EXCEPTION 'provider traits: % staged, % inserted (unknown trait?)', want_tr, got_tr;
  END IF;
  IF want_c <> got_c THEN
    RAISE EXCEPTION 'consumers: % staged, % inserted', want_c, got_c;
  END IF;
END $$;
COMMIT;
ANALYZE;
""".format(now=NOW, bw=QOS_BW))


if __name__ == '__main__':
    main()
