-- mod_placement: PostgreSQL schema.
--
-- The same schema that upstream OpenStack Placement 8.0.0 builds with
-- `placement-manage db sync` (alembic head 422ece571366): the same
-- tables, columns, types, nullability, defaults, sequences, primary
-- keys, unique constraints, foreign keys and index names, so that
-- mod_placement and upstream placement can serve the same database.
-- t/schema/compare.sh checks this file against the real migration.
--
-- Load once into an empty database:
--     psql -v ON_ERROR_STOP=1 -d placement -f sql/postgresql/schema.sql
-- The standard resource classes and traits are not inserted here: the
-- module syncs them itself (ids from sql/resource_classes.txt).
--
-- Notes:
-- * every "id SERIAL" is what SQLAlchemy makes of an integer primary key:
--   an integer column defaulting to nextval('<table>_id_seq').  Standard
--   resource classes are inserted with explicit ids (VCPU = 0, ...) and
--   custom ones from 10000, so resource_classes_id_seq stays unused.
-- * created_at / updated_at are kept for compatibility; they are
--   nullable and carry no default.
-- * several indexes duplicate a unique constraint or a primary key
--   prefix; they exist upstream, so they exist here.

BEGIN;

-- The alembic bookkeeping table, stamped at the head revision so that
-- a later `placement-manage db sync` sees an up-to-date database.
CREATE TABLE alembic_version (
    version_num varchar(32) NOT NULL,
    CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO alembic_version (version_num) VALUES ('422ece571366');

-- Kinds of resource (VCPU, MEMORY_MB, CUSTOM_*).
CREATE TABLE resource_classes (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    id serial NOT NULL,
    name varchar(255) NOT NULL,
    CONSTRAINT resource_classes_pkey PRIMARY KEY (id),
    CONSTRAINT uniq_resource_classes0name UNIQUE (name)
);

-- Resource providers, arranged in trees through root/parent ids.
CREATE TABLE resource_providers (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    id serial NOT NULL,
    uuid varchar(36) NOT NULL,
    name varchar(200),
    generation integer,
    root_provider_id integer,
    parent_provider_id integer,
    CONSTRAINT resource_providers_pkey PRIMARY KEY (id),
    CONSTRAINT uniq_resource_providers0name UNIQUE (name),
    CONSTRAINT uniq_resource_providers0uuid UNIQUE (uuid),
    CONSTRAINT resource_providers_parent_provider_id_fkey
        FOREIGN KEY (parent_provider_id) REFERENCES resource_providers (id),
    CONSTRAINT resource_providers_root_provider_id_fkey
        FOREIGN KEY (root_provider_id) REFERENCES resource_providers (id)
);
CREATE INDEX resource_providers_name_idx
    ON resource_providers (name);
CREATE INDEX resource_providers_parent_provider_id_idx
    ON resource_providers (parent_provider_id);
CREATE INDEX resource_providers_root_provider_id_idx
    ON resource_providers (root_provider_id);
CREATE INDEX resource_providers_uuid_idx
    ON resource_providers (uuid);

-- Inventory: one row per (provider, resource class).
CREATE TABLE inventories (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    id serial NOT NULL,
    resource_provider_id integer NOT NULL,
    resource_class_id integer NOT NULL,
    total integer NOT NULL,
    reserved integer NOT NULL,
    min_unit integer NOT NULL,
    max_unit integer NOT NULL,
    step_size integer NOT NULL,
    allocation_ratio double precision NOT NULL,
    CONSTRAINT inventories_pkey PRIMARY KEY (id),
    CONSTRAINT uniq_inventories0resource_provider_resource_class
        UNIQUE (resource_provider_id, resource_class_id)
);
CREATE INDEX inventories_resource_class_id_idx
    ON inventories (resource_class_id);
CREATE INDEX inventories_resource_provider_id_idx
    ON inventories (resource_provider_id);
CREATE INDEX inventories_resource_provider_resource_class_idx
    ON inventories (resource_provider_id, resource_class_id);

-- Allocations: amounts of a class a consumer (by uuid) uses on a provider.
CREATE TABLE allocations (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    id serial NOT NULL,
    resource_provider_id integer NOT NULL,
    consumer_id varchar(36) NOT NULL,
    resource_class_id integer NOT NULL,
    used integer NOT NULL,
    CONSTRAINT allocations_pkey PRIMARY KEY (id)
);
CREATE INDEX allocations_consumer_id_idx
    ON allocations (consumer_id);
CREATE INDEX allocations_resource_class_id_idx
    ON allocations (resource_class_id);
CREATE INDEX allocations_resource_provider_class_used_idx
    ON allocations (resource_provider_id, resource_class_id, used);

-- Aggregates (by uuid) and their provider members.
CREATE TABLE placement_aggregates (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    id serial NOT NULL,
    uuid varchar(36),
    CONSTRAINT placement_aggregates_pkey PRIMARY KEY (id),
    CONSTRAINT uniq_placement_aggregates0uuid UNIQUE (uuid)
);
CREATE INDEX ix_placement_aggregates_uuid
    ON placement_aggregates (uuid);

CREATE TABLE resource_provider_aggregates (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    resource_provider_id integer NOT NULL,
    aggregate_id integer NOT NULL,
    CONSTRAINT resource_provider_aggregates_pkey
        PRIMARY KEY (resource_provider_id, aggregate_id)
);
CREATE INDEX resource_provider_aggregates_aggregate_id_idx
    ON resource_provider_aggregates (aggregate_id);

-- Traits (standard and CUSTOM_*) and the providers that have them.
CREATE TABLE traits (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    id serial NOT NULL,
    name varchar(255) NOT NULL,
    CONSTRAINT traits_pkey PRIMARY KEY (id),
    CONSTRAINT uniq_traits0name UNIQUE (name)
);

CREATE TABLE resource_provider_traits (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    trait_id integer NOT NULL,
    resource_provider_id integer NOT NULL,
    CONSTRAINT resource_provider_traits_pkey
        PRIMARY KEY (trait_id, resource_provider_id),
    CONSTRAINT resource_provider_traits_resource_provider_id_fkey
        FOREIGN KEY (resource_provider_id) REFERENCES resource_providers (id),
    CONSTRAINT resource_provider_traits_trait_id_fkey
        FOREIGN KEY (trait_id) REFERENCES traits (id)
);
CREATE INDEX resource_provider_traits_resource_provider_trait_idx
    ON resource_provider_traits (resource_provider_id, trait_id);

-- Keystone projects and users, by their external (keystone) id.
CREATE TABLE projects (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    id serial NOT NULL,
    external_id varchar(255) NOT NULL,
    CONSTRAINT projects_pkey PRIMARY KEY (id),
    CONSTRAINT uniq_projects0external_id UNIQUE (external_id)
);

CREATE TABLE users (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    id serial NOT NULL,
    external_id varchar(255) NOT NULL,
    CONSTRAINT users_pkey PRIMARY KEY (id),
    CONSTRAINT uniq_users0external_id UNIQUE (external_id)
);

-- Consumer types (microversion 1.38) and consumers.
CREATE TABLE consumer_types (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    id serial NOT NULL,
    name varchar(255) NOT NULL,
    CONSTRAINT consumer_types_pkey PRIMARY KEY (id),
    CONSTRAINT uniq_consumer_types0name UNIQUE (name)
);

CREATE TABLE consumers (
    created_at timestamp without time zone,
    updated_at timestamp without time zone,
    id serial NOT NULL,
    uuid varchar(36) NOT NULL,
    project_id integer NOT NULL,
    user_id integer NOT NULL,
    generation integer NOT NULL DEFAULT 0,
    consumer_type_id integer,
    CONSTRAINT consumers_pkey PRIMARY KEY (id),
    CONSTRAINT uniq_consumers0uuid UNIQUE (uuid),
    CONSTRAINT consumers_consumer_type_id_fkey
        FOREIGN KEY (consumer_type_id) REFERENCES consumer_types (id)
);
CREATE INDEX consumers_consumer_type_id_idx
    ON consumers (consumer_type_id);
CREATE INDEX consumers_project_id_user_id_uuid_idx
    ON consumers (project_id, user_id, uuid);
CREATE INDEX consumers_project_id_uuid_idx
    ON consumers (project_id, uuid);

COMMIT;
