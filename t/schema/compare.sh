#!/bin/sh
# t/schema/compare.sh: prove that sql/<dialect>/schema.sql builds the same
# schema as upstream placement's `placement-manage db sync`.
#
# Usage:  t/schema/compare.sh pgsql|mysql|sqlite [--tool REVISION]
#
# With --tool REVISION, "ours" is made by mod-placement-manage (MANAGE,
# default build/mod-placement-manage) `db sync REVISION` into an empty
# database instead of loading schema.sql; for REVISION a082b8bb98d0 the
# upstream side is 8.0.0's head plus that revision's five documented
# index drops (placement 10.0.0), and its alembic_version set to it.
# With --from REVISION, "ours" is brought to REVISION by upstream 8.0.0's
# migration code (t/schema/upstream-to.py), then upgraded by the tool's
# `db sync` to a082b8bb98d0, and compared with upstream's at that head.
#
# pgsql and mysql need an already running database server that the
# caller owns; this script creates the databases pl_schema_up and pl_schema_ours on it (it
# drops them first if a previous run left them behind), runs
# `placement-manage db sync` into the first, loads sql/<dialect>/schema.sql
# into the second, compares the two catalogues, then drops both.
#
# Environment:
#   pgsql:  PGHOST      socket directory (or host name) of the server
#           PGPORT      its port
#           PGUSER      a role allowed to CREATE DATABASE
#           PGPASSWORD  optional
#   mysql:  MYSQL_SOCK      path of the server's unix socket
#           MYSQL_USER      a user allowed to CREATE DATABASE
#           MYSQL_PASSWORD  optional
#   both:   PLACEMENT_MANAGE  optional, default "placement-manage"
#                             (Debian package placement-common)
#           SCHEMA_SQL        optional: load this file instead of
#                             sql/<dialect>/schema.sql (to test the test)
#           SCHEMA_KEEP_DIR   optional: copy the two sorted catalogue
#                             descriptions there (upstream, ours)
#
# What is compared (as sorted text, shown as a unified diff on mismatch):
#   pgsql: tables; columns (position, type, length, nullability, default);
#          sequences; constraints with pg_get_constraintdef (primary,
#          unique, foreign keys); indexes with pg_indexes.indexdef;
#          the rows of alembic_version.
#   mysql: tables (engine, collation); columns (position, COLUMN_TYPE,
#          nullability, default, extra, charset, collation); constraints
#          (primary, unique, foreign) with their columns and referenced
#          columns and rules; indexes from STATISTICS with their columns;
#          the rows of alembic_version.
#   sqlite: columns (position, declared type, not null, default, primary
#          key position); foreign keys; indexes (including the automatic
#          ones behind PRIMARY KEY / UNIQUE) with their columns;
#          the rows of alembic_version.
#
# Exit status 0 if the schemas are equal, 1 otherwise (or on any setup
# error).  The last line printed is
#   schema <dialect>: 1 passed, 0 failed     or
#   schema <dialect>: 0 passed, 1 failed

# Functions are called through ${p}_<verb>, which shellcheck cannot see:
# shellcheck disable=SC2317

dialect=$1
tool_rev= from_rev=
case "${2:-}" in
--tool) tool_rev=${3:-} ;;
--from) from_rev=${3:-} tool_rev=a082b8bb98d0 ;;
esac
if [ -n "${2:-}" ] && [ -z "${3:-}" ]; then
    echo "usage: $0 DIALECT [--tool|--from] REVISION" >&2
    exit 1
fi
created=
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
pm=${PLACEMENT_MANAGE:-placement-manage}
up=pl_schema_up
ours=pl_schema_ours

case $dialect in
pgsql) sqldir=postgresql ;;
mysql) sqldir=mysql ;;
sqlite) sqldir=sqlite ;;
*)
    echo "usage: $0 pgsql|mysql|sqlite" >&2
    exit 1
    ;;
esac
schema_sql=${SCHEMA_SQL:-$top/sql/$sqldir/schema.sql}
manage=${MANAGE:-$top/build/mod-placement-manage}
[ -z "$tool_rev" ] || schema_sql=$manage
[ -r "$schema_sql" ] || {
    echo "compare.sh: cannot read $schema_sql" >&2
    echo "schema $dialect${from_rev:+ from $from_rev}${tool_rev:+ tool $tool_rev}: 0 passed, 1 failed"
    exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/pl-schema.XXXXXX") || exit 1

finish() {
    # $1: 0 = passed, anything else = failed
    [ -n "$created" ] && drop_dbs >/dev/null 2>&1
    rm -rf "$work"
    if [ "$1" -eq 0 ]; then
        echo "schema $dialect${from_rev:+ from $from_rev}${tool_rev:+ tool $tool_rev}: 1 passed, 0 failed"
        exit 0
    fi
    echo "schema $dialect${from_rev:+ from $from_rev}${tool_rev:+ tool $tool_rev}: 0 passed, 1 failed"
    exit 1
}

fail() {
    echo "compare.sh: $*" >&2
    for f in "$work"/*.log; do
        [ -s "$f" ] && sed "s|^|  $(basename "$f"): |" "$f" >&2
    done
    finish 1
}

# ---------------------------------------------------------------- pgsql

pg_check_env() {
    for v in PGHOST PGPORT PGUSER; do
        eval "[ -n \"\${$v}\" ]" || fail "$v is not set"
    done
    export PGHOST PGPORT PGUSER
}

pg_sql() {
    # $1: database, stdin: SQL; unaligned, tuples only
    psql -X -q -A -t -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" -f - -d "$1"
}

pg_drop_dbs() {
    for d in $up $ours; do
        echo "DROP DATABASE IF EXISTS $d;" | pg_sql postgres
    done
}

pg_create_dbs() {
    pg_drop_dbs || return 1
    for d in $up $ours; do
        echo "CREATE DATABASE $d;" | pg_sql postgres || return 1
    done
}

pg_url() {
    auth=$PGUSER
    [ -n "$PGPASSWORD" ] && auth="$PGUSER:$PGPASSWORD"
    echo "postgresql+psycopg2://$auth@/$1?host=$PGHOST&port=$PGPORT"
}

pg_load_ours() {
    psql -X -q -v ON_ERROR_STOP=1 -d "$ours" -f "$schema_sql"
}

pg_describe() {
    pg_sql "$1" <<'EOF'
SELECT 'table ' || table_name || ' ' || table_type
  FROM information_schema.tables
 WHERE table_schema = 'public';
SELECT 'column ' || table_name || '.' || column_name
       || ' pos=' || ordinal_position
       || ' type=' || data_type
       || ' len=' || coalesce(character_maximum_length::text, '-')
       || ' prec=' || coalesce(numeric_precision::text, '-')
       || ' null=' || is_nullable
       || ' default=' || coalesce(column_default, '-')
  FROM information_schema.columns
 WHERE table_schema = 'public';
SELECT 'sequence ' || sequence_name || ' ' || data_type
       || ' start=' || start_value || ' min=' || minimum_value
       || ' max=' || maximum_value || ' inc=' || increment
       || ' cycle=' || cycle_option
  FROM information_schema.sequences
 WHERE sequence_schema = 'public';
SELECT 'sequence-owner ' || s.relname || ' ' || t.relname || '.' || a.attname
  FROM pg_depend d
  JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
  JOIN pg_class t ON t.oid = d.refobjid
  JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
  JOIN pg_namespace n ON n.oid = s.relnamespace AND n.nspname = 'public'
 WHERE d.deptype IN ('a', 'i');
SELECT 'constraint ' || c.conrelid::regclass || ' ' || c.conname
       || ' ' || c.contype::text || ' ' || pg_get_constraintdef(c.oid)
  FROM pg_constraint c
  JOIN pg_namespace n ON n.oid = c.connamespace AND n.nspname = 'public';
SELECT 'index ' || tablename || ' ' || indexname || ' ' || indexdef
  FROM pg_indexes
 WHERE schemaname = 'public';
SELECT 'alembic_version ' || version_num FROM alembic_version;
EOF
}

# ---------------------------------------------------------------- mysql

my_check_env() {
    [ -n "$MYSQL_SOCK" ] || fail "MYSQL_SOCK is not set"
    [ -n "$MYSQL_USER" ] || fail "MYSQL_USER is not set"
    if command -v mariadb >/dev/null 2>&1; then
        mycli=mariadb
    else
        mycli=mysql
    fi
}

my_sql() {
    # $1: database, stdin: SQL; batch mode, no column names
    if [ -n "$MYSQL_PASSWORD" ]; then
        MYSQL_PWD=$MYSQL_PASSWORD $mycli -S "$MYSQL_SOCK" -u "$MYSQL_USER" \
            -B -N "$1"
    else
        $mycli -S "$MYSQL_SOCK" -u "$MYSQL_USER" -B -N "$1"
    fi
}

my_drop_dbs() {
    echo "DROP DATABASE IF EXISTS $up; DROP DATABASE IF EXISTS $ours;" |
        my_sql mysql
}

my_create_dbs() {
    my_drop_dbs || return 1
    # utf8mb4 is the Debian server default and what upstream documents.
    echo "CREATE DATABASE $up CHARACTER SET utf8mb4;
          CREATE DATABASE $ours CHARACTER SET utf8mb4;" | my_sql mysql
}

my_url() {
    auth=$MYSQL_USER
    [ -n "$MYSQL_PASSWORD" ] && auth="$MYSQL_USER:$MYSQL_PASSWORD"
    echo "mysql+pymysql://$auth@/$1?unix_socket=$MYSQL_SOCK&charset=utf8mb4"
}

my_load_ours() {
    my_sql "$ours" < "$schema_sql"
}

my_describe() {
    # The database name is replaced by "DB" so the two sides compare.
    my_sql "$1" <<'EOF'
SET SESSION group_concat_max_len = 65535;
SELECT CONCAT('table ', TABLE_NAME, ' ', TABLE_TYPE, ' engine=', ENGINE,
              ' collation=', TABLE_COLLATION)
  FROM information_schema.TABLES
 WHERE TABLE_SCHEMA = DATABASE();
SELECT CONCAT('column ', TABLE_NAME, '.', COLUMN_NAME,
              ' pos=', ORDINAL_POSITION,
              ' type=', COLUMN_TYPE,
              ' null=', IS_NULLABLE,
              ' default=', COALESCE(COLUMN_DEFAULT, '-'),
              ' extra=', EXTRA,
              ' charset=', COALESCE(CHARACTER_SET_NAME, '-'),
              ' collation=', COALESCE(COLLATION_NAME, '-'))
  FROM information_schema.COLUMNS
 WHERE TABLE_SCHEMA = DATABASE();
SELECT CONCAT('constraint ', tc.TABLE_NAME, ' ', tc.CONSTRAINT_NAME, ' ',
              tc.CONSTRAINT_TYPE, ' (',
              GROUP_CONCAT(k.COLUMN_NAME ORDER BY k.ORDINAL_POSITION), ')',
              COALESCE(CONCAT(' -> ', MAX(k.REFERENCED_TABLE_NAME), ' (',
                  GROUP_CONCAT(k.REFERENCED_COLUMN_NAME
                               ORDER BY k.ORDINAL_POSITION), ')'), ''))
  FROM information_schema.TABLE_CONSTRAINTS tc
  JOIN information_schema.KEY_COLUMN_USAGE k
    ON k.CONSTRAINT_SCHEMA = tc.CONSTRAINT_SCHEMA
   AND k.TABLE_NAME = tc.TABLE_NAME
   AND k.CONSTRAINT_NAME = tc.CONSTRAINT_NAME
 WHERE tc.CONSTRAINT_SCHEMA = DATABASE()
 GROUP BY tc.TABLE_NAME, tc.CONSTRAINT_NAME, tc.CONSTRAINT_TYPE;
SELECT CONCAT('fk-rules ', TABLE_NAME, ' ', CONSTRAINT_NAME,
              ' update=', UPDATE_RULE, ' delete=', DELETE_RULE,
              ' match=', MATCH_OPTION)
  FROM information_schema.REFERENTIAL_CONSTRAINTS
 WHERE CONSTRAINT_SCHEMA = DATABASE();
SELECT CONCAT('index ', TABLE_NAME, ' ', INDEX_NAME,
              ' non_unique=', MAX(NON_UNIQUE), ' type=', MAX(INDEX_TYPE),
              ' (', GROUP_CONCAT(CONCAT(COLUMN_NAME,
                                        COALESCE(CONCAT('(', SUB_PART, ')'), ''),
                                        ' ', COALESCE(COLLATION, '-'))
                                 ORDER BY SEQ_IN_INDEX), ')')
  FROM information_schema.STATISTICS
 WHERE TABLE_SCHEMA = DATABASE()
 GROUP BY TABLE_NAME, INDEX_NAME;
SELECT CONCAT('alembic_version ', version_num) FROM alembic_version;
EOF
}

# ---------------------------------------------------------------- sqlite

lite_check_env() {
    command -v sqlite3 >/dev/null 2>&1 || fail "sqlite3 not found"
}

lite_drop_dbs() {
    rm -f "$work/$up.sqlite" "$work/$ours.sqlite"
}

lite_create_dbs() {
    lite_drop_dbs
}

lite_url() {
    echo "sqlite:///$work/$1.sqlite"
}

lite_load_ours() {
    sqlite3 -bail "$work/$ours.sqlite" < "$schema_sql"
}

lite_describe() {
    # SQLite names the automatic indexes sqlite_autoindex_<table>_<n>,
    # numbered in declaration order: the columns identify them instead.
    db=$work/$1.sqlite
    for t in $(sqlite3 "$db" "SELECT name FROM sqlite_master
                              WHERE type = 'table' ORDER BY name"); do
        echo "table $t"
        sqlite3 "$db" "
SELECT 'column $t.' || name || ' pos=' || cid || ' type=' || type
       || ' notnull=' || \"notnull\" || ' default=' || coalesce(dflt_value, '-')
       || ' pk=' || pk
  FROM pragma_table_info('$t');
SELECT 'fk $t (' || \"from\" || ') -> ' || \"table\" || ' (' || \"to\" || ')'
       || ' update=' || on_update || ' delete=' || on_delete
  FROM pragma_foreign_key_list('$t');
SELECT 'index $t '
       || CASE WHEN il.origin = 'c' THEN il.name ELSE '(auto)' END
       || ' unique=' || il.\"unique\" || ' origin=' || il.origin || ' ('
       || (SELECT group_concat(name, ',')
             FROM (SELECT name FROM pragma_index_info(il.name) ORDER BY seqno))
       || ')'
  FROM pragma_index_list('$t') il;" || return 1
    done
    sqlite3 "$db" "SELECT 'alembic_version ' || version_num FROM alembic_version"
}

# ---------------------------------------------------------------- main

case $dialect in
pgsql) p=pg ;;
mysql) p=my ;;
sqlite) p=lite ;;
esac
drop_dbs() { "${p}_drop_dbs"; }

${p}_check_env
command -v "$pm" >/dev/null 2>&1 || fail "$pm not found"

created=1
${p}_create_dbs >"$work/create.log" 2>&1 || fail "cannot create databases"

printf '[placement_database]\nconnection = %s\n' "$(${p}_url $up)" \
    >"$work/placement.conf"
"$pm" --config-file "$work/placement.conf" db sync >"$work/dbsync.log" 2>&1 ||
    fail "placement-manage db sync failed"

# a082b8bb98d0 (placement 10.0.0) on top of 8.0.0's head, as upstream
# master's migration writes it: five indexes dropped, the revision stamped
upstream_a082() {
    case $dialect in
    mysql)
        on_rp=" ON resource_providers" on_inv=" ON inventories"
        on_agg=" ON placement_aggregates" ;;
    *) on_rp= on_inv= on_agg= ;;
    esac
    sql="DROP INDEX inventories_resource_provider_id_idx$on_inv;
DROP INDEX inventories_resource_provider_resource_class_idx$on_inv;
DROP INDEX ix_placement_aggregates_uuid$on_agg;
DROP INDEX resource_providers_name_idx$on_rp;
DROP INDEX resource_providers_uuid_idx$on_rp;
UPDATE alembic_version SET version_num = 'a082b8bb98d0';"
    case $dialect in
    pgsql) echo "$sql" | pg_sql $up ;;
    mysql) echo "$sql" | my_sql $up ;;
    sqlite) echo "$sql" | sqlite3 -bail "$work/$up.sqlite" ;;
    esac
}
if [ "$tool_rev" = a082b8bb98d0 ]; then
    upstream_a082 >"$work/a082.log" 2>&1 || fail "dropping the five indexes upstream failed"
fi

if [ -n "$from_rev" ]; then
    /usr/bin/python3 "$here/upstream-to.py" "$(${p}_url $ours)" "$from_rev" \
        >"$work/from.log" 2>&1 || fail "upstream's migration to $from_rev failed"
fi
if [ -n "$tool_rev" ]; then
    "$manage" --db-url "$(${p}_url $ours)" db sync "$tool_rev" >"$work/load.log" 2>&1 ||
        fail "mod-placement-manage db sync $tool_rev failed"
else
    ${p}_load_ours >"$work/load.log" 2>&1 ||
        fail "loading $schema_sql failed"
fi

${p}_describe $up >"$work/up.raw" 2>"$work/describe-up.log" ||
    fail "cannot read the upstream catalogue"
${p}_describe $ours >"$work/ours.raw" 2>"$work/describe-ours.log" ||
    fail "cannot read our catalogue"
LC_ALL=C sort "$work/up.raw" >"$work/upstream"
LC_ALL=C sort "$work/ours.raw" >"$work/ours"

if [ -n "$SCHEMA_KEEP_DIR" ]; then
    mkdir -p "$SCHEMA_KEEP_DIR" &&
        cp "$work/upstream" "$SCHEMA_KEEP_DIR/$dialect.upstream" &&
        cp "$work/ours" "$SCHEMA_KEEP_DIR/$dialect.ours"
fi

# An empty description means the queries saw nothing: never a pass.
[ -s "$work/upstream" ] || fail "empty upstream catalogue"

if (cd "$work" && diff -u upstream ours); then
    echo "schema $dialect: $(wc -l <"$work/ours") catalogue lines identical"
    finish 0
fi
echo "schema $dialect: $schema_sql differs from upstream (see diff)"
finish 1
