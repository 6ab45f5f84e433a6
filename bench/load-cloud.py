#!/usr/bin/python3
"""Print PostgreSQL SQL that loads a nova-like cloud straight into a
Placement database (issue 26's scheduler loop and quota counting).

    bench/load-cloud.py computes N [--vcpu 4 --ram-mb 8192 --disk-gb 200]
        N compute nodes 'bench-cn-00000'... (uuid5 of the name), each with
        VCPU (allocation_ratio 4.0, as nova's initial ratio), MEMORY_MB
        (512 reserved, ratio 1.0) and DISK_GB (ratio 1.0) and the traits
        nova's compute reports (COMPUTE_NODE and a few COMPUTE_*); one in
        twenty also has COMPUTE_STATUS_DISABLED (a disabled service), which
        nova's query forbids.
    bench/load-cloud.py consumers C [--projects 10 --users 10]
        C instances (consumer type INSTANCE, one in ten MIGRATION), spread
        round-robin over the projects 'bench-project-P' and their users
        'bench-user-P-U', each holding VCPU 1, MEMORY_MB 512, DISK_GB 10 on
        one of the compute nodes already loaded (round-robin too). Provider
        and consumer generations are bumped as the API would.

The standard classes and traits must already be in the database (either
server inserts them on its first request). Pipe into
`psql -v ON_ERROR_STOP=1`.
"""
import argparse
import sys
import uuid

NS = uuid.UUID('0f1c6a54-4b0e-4bd7-9d55-26c1b2b0d0a1')
TRAITS = ['COMPUTE_NODE', 'COMPUTE_VOLUME_ATTACH_WITH_TAG',
          'COMPUTE_NET_ATTACH_INTERFACE', 'COMPUTE_IMAGE_TYPE_QCOW2',
          'COMPUTE_IMAGE_TYPE_RAW']
NOW = "now() AT TIME ZONE 'UTC'"


def cn_uuid(i):
    return str(uuid.uuid5(NS, 'bench-cn-%05d' % i))


def computes(a):
    w = sys.stdout.write
    w('BEGIN;\nCREATE TEMP TABLE s_rp (ord int, uuid text, name text, '
      'disabled bool) ON COMMIT DROP;\nCOPY s_rp FROM STDIN;\n')
    for i in range(a.n):
        w('%d\t%s\tbench-cn-%05d\t%s\n' % (i, cn_uuid(i), i,
                                           't' if i % 20 == 19 else 'f'))
    w('\\.\n')
    w("""
INSERT INTO resource_providers (created_at, uuid, name, generation)
  SELECT {now}, uuid, name, 3 FROM s_rp ORDER BY ord;
UPDATE resource_providers r SET root_provider_id = r.id
  FROM s_rp s WHERE r.uuid = s.uuid;
INSERT INTO inventories (created_at, resource_provider_id, resource_class_id, total,
                         reserved, min_unit, max_unit, step_size, allocation_ratio)
  SELECT {now}, rp.id, rc.id, v.total, v.reserved, 1, v.total, 1, v.ratio
  FROM s_rp s JOIN resource_providers rp ON rp.uuid = s.uuid
  CROSS JOIN (VALUES ('VCPU', {vcpu}, 0, 4.0), ('MEMORY_MB', {ram}, 512, 1.0),
                     ('DISK_GB', {disk}, 0, 1.0)) v(rc, total, reserved, ratio)
  JOIN resource_classes rc ON rc.name = v.rc;
INSERT INTO resource_provider_traits (created_at, trait_id, resource_provider_id)
  SELECT {now}, t.id, rp.id FROM s_rp s JOIN resource_providers rp ON rp.uuid = s.uuid
  JOIN traits t ON t.name IN ({traits})
     OR (t.name = 'COMPUTE_STATUS_DISABLED' AND s.disabled);
DO $$
BEGIN
  IF (SELECT count(*) FROM inventories) < 3 * {n} THEN
    RAISE EXCEPTION 'inventories missing (standard classes not synced?)';
  END IF;
END $$;
COMMIT;
ANALYZE;
""".format(now=NOW, vcpu=a.vcpu, ram=a.ram_mb, disk=a.disk_gb, n=a.n,
           traits=', '.join("'%s'" % t for t in TRAITS)))
    sys.stderr.write('load-cloud: %d compute nodes\n' % a.n)


def consumers(a):
    w = sys.stdout.write
    w('BEGIN;\nCREATE TEMP TABLE s_c (uuid text, proj text, usr text, '
      'ctype text, rp text) ON COMMIT DROP;\nCOPY s_c FROM STDIN;\n')
    ncn = a.computes
    for i in range(a.n):
        p = i % a.projects
        u = (i // a.projects) % a.users
        w('%s\tbench-project-%d\tbench-user-%d-%d\t%s\t%s\n' % (
            uuid.uuid5(NS, 'bench-instance-%d' % i), p, p, u,
            # one in ten of each project's consumers (not of the projects)
            'MIGRATION' if (i // a.projects) % 10 == 9 else 'INSTANCE',
            cn_uuid(i % ncn)))
    w('\\.\n')
    w("""
INSERT INTO projects (external_id, created_at)
  SELECT DISTINCT proj, {now} FROM s_c ON CONFLICT DO NOTHING;
INSERT INTO users (external_id, created_at)
  SELECT DISTINCT usr, {now} FROM s_c ON CONFLICT DO NOTHING;
INSERT INTO consumer_types (name, created_at)
  SELECT DISTINCT ctype, {now} FROM s_c ON CONFLICT DO NOTHING;
INSERT INTO consumers (uuid, project_id, user_id, generation, consumer_type_id, created_at)
  SELECT s.uuid, p.id, u.id, 1, ct.id, {now} FROM s_c s
  JOIN projects p ON p.external_id = s.proj JOIN users u ON u.external_id = s.usr
  JOIN consumer_types ct ON ct.name = s.ctype;
INSERT INTO allocations (resource_provider_id, consumer_id, resource_class_id, used, created_at)
  SELECT rp.id, s.uuid, rc.id, v.used, {now}
  FROM s_c s JOIN resource_providers rp ON rp.uuid = s.rp
  CROSS JOIN (VALUES ('VCPU', 1), ('MEMORY_MB', 512), ('DISK_GB', 10)) v(rc, used)
  JOIN resource_classes rc ON rc.name = v.rc;
UPDATE resource_providers r SET generation = r.generation + c.n
  FROM (SELECT rp, count(*) AS n FROM s_c GROUP BY rp) c WHERE r.uuid = c.rp;
DO $$
BEGIN
  IF (SELECT count(*) FROM allocations) < 3 * {n} THEN
    RAISE EXCEPTION 'allocations missing (compute nodes not loaded?)';
  END IF;
END $$;
COMMIT;
ANALYZE;
""".format(now=NOW, n=a.n))
    sys.stderr.write('load-cloud: %d consumers over %d projects x %d users\n'
                     % (a.n, a.projects, a.users))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest='what', required=True)
    c = sub.add_parser('computes')
    c.add_argument('n', type=int)
    c.add_argument('--vcpu', type=int, default=4)
    c.add_argument('--ram-mb', type=int, default=8192)
    c.add_argument('--disk-gb', type=int, default=200)
    c.set_defaults(func=computes)
    k = sub.add_parser('consumers')
    k.add_argument('n', type=int)
    k.add_argument('--computes', type=int, default=1000,
                   help='how many compute nodes were loaded')
    k.add_argument('--projects', type=int, default=10)
    k.add_argument('--users', type=int, default=10)
    k.set_defaults(func=consumers)
    a = p.parse_args()
    if a.n < 1:
        p.error('N must be at least 1')
    a.func(a)


if __name__ == '__main__':
    main()
