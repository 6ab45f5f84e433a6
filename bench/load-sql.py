#!/usr/bin/python3
"""Print SQL (PostgreSQL or MariaDB) that loads the benchmark's provider
layout straight into a Placement database, for sizes the API would take too
long to load.

    bench/load-sql.py N [--seed 42] [--nested-trees T] | psql -v ON_ERROR_STOP=1 ...
    bench/load-sql.py N --dialect mysql | mariadb placement

The layout is the one placement_bench.py's load phase creates through the API
(its flat_plan() and nested_tree_spec() are imported from
/work/shared/bench/placement_bench.py, not copied): N flat providers with
VCPU / MEMORY_MB / DISK_GB inventory, the static aggregate plus 0-2 others,
HW_CPU_X86_SSE42 + one CUSTOM_BENCH_RACK_* trait, HW_CPU_X86_AVX2 on about
half; then T (default N/10) nested trees of 7 providers (root, 2 NUMA, 2 PF
under each). Generations are set as the API would leave them.

The standard resource classes and traits must already be in the database
(mod_placement inserts them on its first request), custom traits are added.
Rows go through temporary staging tables (COPY; multi-row INSERTs for
MariaDB) and are joined by uuid/name, so the script can be run on a database
that already holds providers.
"""
import argparse
import random
import sys
import uuid

sys.path.insert(0, '/work/shared/bench')
import placement_bench as pb  # noqa: E402


def write_pgsql(rps, invs, aggs, traits):
    w = sys.stdout.write
    w('BEGIN;\n')
    w('CREATE TEMP TABLE s_rp (ord serial, uuid text, name text, parent text, '
      'root text, gen int) ON COMMIT DROP;\n')
    w('CREATE TEMP TABLE s_inv (uuid text, rc text, total int, reserved int, '
      'min_unit int, max_unit int, step_size int, ratio float8) ON COMMIT DROP;\n')
    w('CREATE TEMP TABLE s_agg (uuid text, agg text) ON COMMIT DROP;\n')
    w('CREATE TEMP TABLE s_trait (uuid text, trait text) ON COMMIT DROP;\n')
    w('COPY s_rp (uuid, name, parent, root, gen) FROM STDIN;\n')
    for r in rps:
        w('%s\t%s\t%s\t%s\t%d\n' % (r[0], r[1], r[2] or '\\N', r[3], r[4]))
    w('\\.\n')
    w('COPY s_inv FROM STDIN;\n')
    for u, rc, inv in invs:
        total = inv['total']
        w('%s\t%s\t%d\t%d\t%d\t%d\t%d\t%r\n' % (
            u, rc, total, inv.get('reserved', 0), inv.get('min_unit', 1),
            inv.get('max_unit', total), inv.get('step_size', 1),
            float(inv.get('allocation_ratio', 1.0))))
    w('\\.\n')
    w('COPY s_agg FROM STDIN;\n')
    for u, ag in aggs:
        w('%s\t%s\n' % (u, ag))
    w('\\.\n')
    w('COPY s_trait FROM STDIN;\n')
    for u, t in traits:
        w('%s\t%s\n' % (u, t))
    w('\\.\n')
    w("""
INSERT INTO resource_providers (created_at, uuid, name, generation)
  SELECT now() AT TIME ZONE 'UTC', uuid, name, gen FROM s_rp ORDER BY ord;
UPDATE resource_providers r SET root_provider_id = root.id, parent_provider_id = par.id
  FROM s_rp s JOIN resource_providers root ON root.uuid = s.root
  LEFT JOIN resource_providers par ON par.uuid = s.parent
  WHERE r.uuid = s.uuid;
INSERT INTO inventories (created_at, resource_provider_id, resource_class_id, total,
                         reserved, min_unit, max_unit, step_size, allocation_ratio)
  SELECT now() AT TIME ZONE 'UTC', rp.id, rc.id, s.total, s.reserved, s.min_unit,
         s.max_unit, s.step_size, s.ratio
  FROM s_inv s JOIN resource_providers rp ON rp.uuid = s.uuid
  JOIN resource_classes rc ON rc.name = s.rc;
INSERT INTO placement_aggregates (created_at, uuid)
  SELECT DISTINCT now() AT TIME ZONE 'UTC', agg FROM s_agg ON CONFLICT (uuid) DO NOTHING;
INSERT INTO resource_provider_aggregates (created_at, resource_provider_id, aggregate_id)
  SELECT now() AT TIME ZONE 'UTC', rp.id, a.id FROM s_agg s
  JOIN resource_providers rp ON rp.uuid = s.uuid JOIN placement_aggregates a ON a.uuid = s.agg;
INSERT INTO traits (created_at, name)
  SELECT DISTINCT now() AT TIME ZONE 'UTC', trait FROM s_trait WHERE trait LIKE 'CUSTOM\\_%'
  ON CONFLICT (name) DO NOTHING;
INSERT INTO resource_provider_traits (created_at, trait_id, resource_provider_id)
  SELECT now() AT TIME ZONE 'UTC', t.id, rp.id FROM s_trait s
  JOIN resource_providers rp ON rp.uuid = s.uuid JOIN traits t ON t.name = s.trait;
DO $$
BEGIN
  IF (SELECT count(*) FROM s_inv s LEFT JOIN resource_classes rc ON rc.name = s.rc
      WHERE rc.id IS NULL) > 0 THEN
    RAISE EXCEPTION 'unknown resource class in the staging data (standard classes not synced?)';
  END IF;
  IF (SELECT count(*) FROM s_trait s LEFT JOIN traits t ON t.name = s.trait
      WHERE t.id IS NULL) > 0 THEN
    RAISE EXCEPTION 'unknown trait in the staging data (standard traits not synced?)';
  END IF;
END $$;
COMMIT;
ANALYZE;
""")


def mysql_str(v):
    if v is None:
        return 'NULL'
    return "'" + str(v).replace('\\', '\\\\').replace("'", "\\'") + "'"


def mysql_rows(w, table, cols, rows, batch=2000):
    for i in range(0, len(rows), batch):
        w('INSERT INTO %s (%s) VALUES\n' % (table, cols))
        w(',\n'.join('(%s)' % ', '.join(str(v) for v in r)
                      for r in rows[i:i + batch]))
        w(';\n')


def write_mysql(rps, invs, aggs, traits):
    """The same rows for MariaDB: temporary staging tables filled by
    multi-row INSERTs, then the same joins (a temporary table may appear only
    once per statement there, so each join reads it once)."""
    w = sys.stdout.write
    q = mysql_str
    w('SET NAMES utf8mb4;\nSET autocommit = 0;\n')
    w('CREATE TEMPORARY TABLE s_rp (ord int AUTO_INCREMENT PRIMARY KEY, '
      'uuid varchar(36), name varchar(200), parent varchar(36), root varchar(36), '
      'gen int, KEY (uuid)) DEFAULT CHARSET=utf8mb4;\n')
    w('CREATE TEMPORARY TABLE s_inv (uuid varchar(36), rc varchar(255), total int, '
      'reserved int, min_unit int, max_unit int, step_size int, ratio double) '
      'DEFAULT CHARSET=utf8mb4;\n')
    w('CREATE TEMPORARY TABLE s_agg (uuid varchar(36), agg varchar(36)) '
      'DEFAULT CHARSET=utf8mb4;\n')
    w('CREATE TEMPORARY TABLE s_trait (uuid varchar(36), trait varchar(255)) '
      'DEFAULT CHARSET=utf8mb4;\n')
    mysql_rows(w, 's_rp', 'uuid, name, parent, root, gen',
               [(q(r[0]), q(r[1]), q(r[2] or None), q(r[3]), r[4]) for r in rps])
    rows = []
    for u, rc, inv in invs:
        total = inv['total']
        rows.append((q(u), q(rc), total, inv.get('reserved', 0),
                     inv.get('min_unit', 1), inv.get('max_unit', total),
                     inv.get('step_size', 1),
                     repr(float(inv.get('allocation_ratio', 1.0)))))
    mysql_rows(w, 's_inv', 'uuid, rc, total, reserved, min_unit, max_unit, '
               'step_size, ratio', rows)
    mysql_rows(w, 's_agg', 'uuid, agg', [(q(u), q(ag)) for u, ag in aggs])
    mysql_rows(w, 's_trait', 'uuid, trait', [(q(u), q(t)) for u, t in traits])
    w("""
INSERT INTO resource_providers (created_at, uuid, name, generation)
  SELECT UTC_TIMESTAMP(), uuid, name, gen FROM s_rp ORDER BY ord;
UPDATE resource_providers r JOIN s_rp s ON r.uuid = s.uuid
  JOIN resource_providers root ON root.uuid = s.root
  LEFT JOIN resource_providers par ON par.uuid = s.parent
  SET r.root_provider_id = root.id, r.parent_provider_id = par.id;
INSERT INTO inventories (created_at, resource_provider_id, resource_class_id, total,
                         reserved, min_unit, max_unit, step_size, allocation_ratio)
  SELECT UTC_TIMESTAMP(), rp.id, rc.id, s.total, s.reserved, s.min_unit,
         s.max_unit, s.step_size, s.ratio
  FROM s_inv s JOIN resource_providers rp ON rp.uuid = s.uuid
  JOIN resource_classes rc ON rc.name = s.rc;
INSERT IGNORE INTO placement_aggregates (created_at, uuid)
  SELECT DISTINCT UTC_TIMESTAMP(), agg FROM s_agg;
INSERT INTO resource_provider_aggregates (created_at, resource_provider_id, aggregate_id)
  SELECT UTC_TIMESTAMP(), rp.id, a.id FROM s_agg s
  JOIN resource_providers rp ON rp.uuid = s.uuid JOIN placement_aggregates a ON a.uuid = s.agg;
INSERT IGNORE INTO traits (created_at, name)
  SELECT DISTINCT UTC_TIMESTAMP(), trait FROM s_trait WHERE trait LIKE 'CUSTOM\\_%';
INSERT INTO resource_provider_traits (created_at, trait_id, resource_provider_id)
  SELECT UTC_TIMESTAMP(), t.id, rp.id FROM s_trait s
  JOIN resource_providers rp ON rp.uuid = s.uuid JOIN traits t ON t.name = s.trait;
SELECT CONCAT('load-sql: ', (SELECT COUNT(*) FROM s_inv), ' inventories staged, ',
              (SELECT COUNT(*) FROM inventories), ' in the table') AS check_inventories;
COMMIT;
ANALYZE TABLE resource_providers, inventories, allocations, placement_aggregates,
  resource_provider_aggregates, traits, resource_provider_traits;
""")


def allocations_sql(dialect):
    """One consumer per flat provider ('bench-cn-...'), its uuid the
    provider's with a first digit of 'c', holding VCPU 1 and MEMORY_MB 256:
    usage sums and consumer lookups then run over as many rows as a cloud in
    use has (the project and user are shared)."""
    now = 'UTC_TIMESTAMP()' if dialect == 'mysql' else "now() AT TIME ZONE 'UTC'"
    cuuid = ("CONCAT('c', SUBSTRING(rp.uuid, 2))" if dialect == 'mysql'
             else "'c' || substr(rp.uuid, 2)")
    return """
INSERT INTO projects (external_id, created_at) VALUES ('bench-load-project', {now});
INSERT INTO users (external_id, created_at) VALUES ('bench-load-user', {now});
INSERT INTO consumers (uuid, project_id, user_id, generation, created_at)
  SELECT {cuuid}, p.id, u.id, 1, {now} FROM resource_providers rp
  JOIN projects p ON p.external_id = 'bench-load-project'
  JOIN users u ON u.external_id = 'bench-load-user'
  WHERE rp.name LIKE 'bench-cn-%';
INSERT INTO allocations (resource_provider_id, consumer_id, resource_class_id, used, created_at)
  SELECT rp.id, {cuuid}, rc.id, CASE rc.name WHEN 'VCPU' THEN 1 ELSE 256 END, {now}
  FROM resource_providers rp JOIN resource_classes rc ON rc.name IN ('VCPU', 'MEMORY_MB')
  WHERE rp.name LIKE 'bench-cn-%';
UPDATE resource_providers SET generation = generation + 1 WHERE name LIKE 'bench-cn-%';
COMMIT;
""".format(now=now, cuuid=cuuid) + ('ANALYZE TABLE consumers, allocations, projects, users;\n'
                                   if dialect == 'mysql' else 'ANALYZE;\n')


def main():
    p = argparse.ArgumentParser()
    p.add_argument('providers', type=int)
    p.add_argument('--seed', type=int, default=42)
    p.add_argument('--nested-trees', type=int, default=None)
    p.add_argument('--dialect', choices=('pgsql', 'mysql'), default='pgsql')
    p.add_argument('--allocations-only', action='store_true',
                   help='print only SQL that gives every flat provider already '
                   'loaded one consumer holding VCPU 1 and MEMORY_MB 256')
    a = p.parse_args()
    if a.allocations_only:
        sys.stdout.write(allocations_sql(a.dialect))
        return
    trees = a.nested_trees if a.nested_trees is not None else max(10, a.providers // 10)
    rng = random.Random(a.seed)
    plans = pb.flat_plan(a.providers, rng)

    rps, invs, aggs, traits = [], [], [], []
    for pl in plans:
        u = pl['uuid']
        # POST + PUT inventories + PUT aggregates + PUT traits: generation 3
        rps.append((u, 'bench-cn-%s' % u, '', u, 3))
        for rc, inv in sorted(pl['inv'].items()):
            invs.append((u, rc, inv))
        for ag in pl['aggs']:
            aggs.append((u, ag))
        for t in pl['traits']:
            traits.append((u, t))

    spec = pb.nested_tree_spec()

    def node(u, name, parent, root, d):
        gen = 1 + (1 if d.get('traits') else 0)
        rps.append((u, name, parent, root, gen))
        for rc, inv in sorted(d['inv'].items()):
            invs.append((u, rc, inv))
        for t in d.get('traits', []):
            traits.append((u, t))

    for _ in range(trees):
        root = str(uuid.uuid4())
        node(root, 'bench-nested-cn-%s' % root, '', root, spec['root'])
        for i, numa in enumerate(spec['numa']):
            nu = str(uuid.uuid4())
            node(nu, 'bench-nested-numa%d-%s' % (i, nu), root, root, numa)
            for j, pf in enumerate(spec['pf']):
                pu = str(uuid.uuid4())
                node(pu, 'bench-nested-pf%d_%d-%s' % (i, j, pu), nu, root, pf)

    if a.dialect == 'mysql':
        write_mysql(rps, invs, aggs, traits)
    else:
        write_pgsql(rps, invs, aggs, traits)
    sys.stderr.write('load-sql: %d providers (%d flat, %d trees), %d inventories, '
                     '%d aggregate links, %d trait links\n'
                     % (len(rps), len(plans), trees, len(invs), len(aggs), len(traits)))


if __name__ == '__main__':
    main()
