#!/bin/bash
# The plan of every statement a claim (PUT /allocations) runs, on a loaded
# database: EXPLAIN (ANALYZE, BUFFERS) on PostgreSQL, ANALYZE on MariaDB
# (its r_rows column: rows actually read). The texts are those of
# store_consumer.c, store_provider_base.c and store_allocation.c (the
# statements the module logs with log_min_duration_statement = 0 or the
# MariaDB general log), with the values of one loaded consumer and of the
# four providers of one nested tree written in. Writes run in a transaction
# that is rolled back.
#
#   bench/explain-write.sh pgsql PORT DB      (user/password placement)
#   bench/explain-write.sh mysql PORT DB
set -euo pipefail
backend=${1:?pgsql|mysql}; port=${2:?PORT}; db=${3:?DB}

if [ "$backend" = pgsql ]; then
  q() { PGPASSWORD=placement psql -X -q -A -t -h 127.0.0.1 -p "$port" -U placement -d "$db" -c "$1"; }
  explain() { echo "== $1"; PGPASSWORD=placement psql -X -q -A -t -h 127.0.0.1 -p "$port" -U placement -d "$db" \
      -c "BEGIN" -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) $1" -c "ROLLBACK"; }
else
  q() { mariadb --no-defaults -h 127.0.0.1 -P "$port" -uplacement -pplacement -N -B "$db" -e "$1"; }
  explain() { echo "== $1"; mariadb --no-defaults -h 127.0.0.1 -P "$port" -uplacement -pplacement -t "$db" \
      -e "BEGIN; ANALYZE $1; ROLLBACK;"; }
fi

consumer=$(q "SELECT uuid FROM consumers ORDER BY id DESC LIMIT 1")
root=$(q "SELECT id FROM resource_providers WHERE name LIKE 'bench-nested-cn-%' ORDER BY id DESC LIMIT 1")
rps=$(q "SELECT id FROM resource_providers WHERE root_provider_id = $root ORDER BY id LIMIT 4" | paste -sd,)
rp_uuid=$(q "SELECT uuid FROM resource_providers WHERE id = $root")
rcs=$(q "SELECT id FROM resource_classes WHERE name IN ('VCPU','MEMORY_MB','DISK_GB','SRIOV_NET_VF')" | paste -sd,)
project=$(q "SELECT p.external_id FROM projects p JOIN consumers c ON c.project_id = p.id WHERE c.uuid = '$consumer'")
echo "# consumer $consumer, providers $rps (tree of $root), classes $rcs"

explain "SELECT id FROM projects WHERE external_id = '$project'"
explain "SELECT c.id, c.uuid, c.project_id, c.user_id, p.external_id, u.external_id, c.generation, c.consumer_type_id, ct.name, c.created_at, c.updated_at FROM consumers c JOIN projects p ON p.id = c.project_id JOIN users u ON u.id = c.user_id LEFT JOIN consumer_types ct ON ct.id = c.consumer_type_id WHERE c.uuid = '$consumer'"
explain "SELECT rp.id, rp.uuid, rp.name, rp.generation, rp.parent_provider_id, rp.root_provider_id, pp.uuid, rr.uuid, rp.created_at, rp.updated_at FROM resource_providers rp LEFT JOIN resource_providers pp ON pp.id = rp.parent_provider_id LEFT JOIN resource_providers rr ON rr.id = rp.root_provider_id WHERE rp.uuid = '$rp_uuid'"
explain "SELECT resource_provider_id, resource_class_id, SUM(used) FROM allocations WHERE consumer_id IN ('$consumer') GROUP BY resource_provider_id, resource_class_id"
explain "DELETE FROM allocations WHERE consumer_id = '$consumer'"
explain "SELECT id, generation FROM resource_providers WHERE id IN ($rps)"
explain "SELECT i.resource_provider_id, i.resource_class_id, i.total, i.reserved, i.min_unit, i.max_unit, i.step_size, i.allocation_ratio, (SELECT SUM(a.used) FROM allocations a WHERE a.resource_provider_id = i.resource_provider_id AND a.resource_class_id = i.resource_class_id) FROM inventories i WHERE i.resource_provider_id IN ($rps) AND i.resource_class_id IN ($rcs)"
explain "INSERT INTO allocations (resource_provider_id, consumer_id, resource_class_id, used, created_at) VALUES (${rps%%,*}, '$consumer', ${rcs%%,*}, 1, '2026-11-23 00:00:00')"
explain "UPDATE resource_providers SET generation = generation + 1, updated_at = '2026-11-23 00:00:00' WHERE id = $root AND generation = 1"
cid=$(q "SELECT id FROM consumers WHERE uuid = '$consumer'")
explain "UPDATE consumers SET generation = generation + 1, updated_at = '2026-11-23 00:00:00' WHERE id = $cid AND generation = 1"
explain "DELETE FROM consumers WHERE uuid = '$consumer' AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.consumer_id = '$consumer')"
