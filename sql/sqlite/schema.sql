-- mod_placement: SQLite schema.
--
-- The SQLite form of the schema that upstream OpenStack Placement 8.0.0
-- builds with `placement-manage db sync` (alembic head 422ece571366); it
-- has the same tables, columns, primary keys, unique constraints, foreign
-- keys and index names as upstream's own migration run on sqlite:///.
--
-- Load once into a new file:
--     sqlite3 /var/lib/placement/placement.sqlite < sql/sqlite/schema.sql
--
-- Notes:
-- * "id INTEGER NOT NULL ... PRIMARY KEY (id)" makes id the rowid, so an
--   INSERT without id gets max(id) + 1 (no AUTOINCREMENT, as upstream).
--   Standard resource classes are inserted with explicit ids (VCPU = 0),
--   custom ones from 10000.
-- * SQLite does not enforce the foreign keys unless a connection runs
--   PRAGMA foreign_keys = ON; they are declared for fidelity.

BEGIN;

-- The alembic bookkeeping table, stamped at the head revision.
CREATE TABLE alembic_version (
    version_num VARCHAR(32) NOT NULL,
    CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num)
);
INSERT INTO alembic_version (version_num) VALUES ('422ece571366');

-- Kinds of resource (VCPU, MEMORY_MB, CUSTOM_*).
CREATE TABLE resource_classes (
    created_at DATETIME,
    updated_at DATETIME,
    id INTEGER NOT NULL,
    name VARCHAR(255) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uniq_resource_classes0name UNIQUE (name)
);

-- Resource providers, arranged in trees through root/parent ids.
CREATE TABLE resource_providers (
    created_at DATETIME,
    updated_at DATETIME,
    id INTEGER NOT NULL,
    uuid VARCHAR(36) NOT NULL,
    name VARCHAR(200),
    generation INTEGER,
    root_provider_id INTEGER,
    parent_provider_id INTEGER,
    PRIMARY KEY (id),
    FOREIGN KEY (parent_provider_id) REFERENCES resource_providers (id),
    FOREIGN KEY (root_provider_id) REFERENCES resource_providers (id),
    CONSTRAINT uniq_resource_providers0name UNIQUE (name),
    CONSTRAINT uniq_resource_providers0uuid UNIQUE (uuid)
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
    created_at DATETIME,
    updated_at DATETIME,
    id INTEGER NOT NULL,
    resource_provider_id INTEGER NOT NULL,
    resource_class_id INTEGER NOT NULL,
    total INTEGER NOT NULL,
    reserved INTEGER NOT NULL,
    min_unit INTEGER NOT NULL,
    max_unit INTEGER NOT NULL,
    step_size INTEGER NOT NULL,
    allocation_ratio FLOAT NOT NULL,
    PRIMARY KEY (id),
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
    created_at DATETIME,
    updated_at DATETIME,
    id INTEGER NOT NULL,
    resource_provider_id INTEGER NOT NULL,
    consumer_id VARCHAR(36) NOT NULL,
    resource_class_id INTEGER NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (id)
);
CREATE INDEX allocations_resource_provider_class_used_idx
    ON allocations (resource_provider_id, resource_class_id, used);
CREATE INDEX allocations_resource_class_id_idx
    ON allocations (resource_class_id);
CREATE INDEX allocations_consumer_id_idx
    ON allocations (consumer_id);

-- Aggregates (by uuid) and their provider members.
CREATE TABLE placement_aggregates (
    created_at DATETIME,
    updated_at DATETIME,
    id INTEGER NOT NULL,
    uuid VARCHAR(36),
    PRIMARY KEY (id),
    CONSTRAINT uniq_placement_aggregates0uuid UNIQUE (uuid)
);
CREATE INDEX ix_placement_aggregates_uuid
    ON placement_aggregates (uuid);

CREATE TABLE resource_provider_aggregates (
    created_at DATETIME,
    updated_at DATETIME,
    resource_provider_id INTEGER NOT NULL,
    aggregate_id INTEGER NOT NULL,
    PRIMARY KEY (resource_provider_id, aggregate_id)
);
CREATE INDEX resource_provider_aggregates_aggregate_id_idx
    ON resource_provider_aggregates (aggregate_id);

-- Traits (standard and CUSTOM_*) and the providers that have them.
CREATE TABLE traits (
    created_at DATETIME,
    updated_at DATETIME,
    id INTEGER NOT NULL,
    name VARCHAR(255) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uniq_traits0name UNIQUE (name)
);

CREATE TABLE resource_provider_traits (
    created_at DATETIME,
    updated_at DATETIME,
    trait_id INTEGER NOT NULL,
    resource_provider_id INTEGER NOT NULL,
    PRIMARY KEY (trait_id, resource_provider_id),
    FOREIGN KEY (resource_provider_id) REFERENCES resource_providers (id),
    FOREIGN KEY (trait_id) REFERENCES traits (id)
);
CREATE INDEX resource_provider_traits_resource_provider_trait_idx
    ON resource_provider_traits (resource_provider_id, trait_id);

-- Keystone projects and users, by their external (keystone) id.
CREATE TABLE projects (
    created_at DATETIME,
    updated_at DATETIME,
    id INTEGER NOT NULL,
    external_id VARCHAR(255) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uniq_projects0external_id UNIQUE (external_id)
);

CREATE TABLE users (
    created_at DATETIME,
    updated_at DATETIME,
    id INTEGER NOT NULL,
    external_id VARCHAR(255) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uniq_users0external_id UNIQUE (external_id)
);

-- Consumer types (microversion 1.38) and consumers.
CREATE TABLE consumer_types (
    created_at DATETIME,
    updated_at DATETIME,
    id INTEGER NOT NULL,
    name VARCHAR(255) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uniq_consumer_types0name UNIQUE (name)
);

CREATE TABLE consumers (
    created_at DATETIME,
    updated_at DATETIME,
    id INTEGER NOT NULL,
    uuid VARCHAR(36) NOT NULL,
    project_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    generation INTEGER DEFAULT 0 NOT NULL,
    consumer_type_id INTEGER,
    PRIMARY KEY (id),
    CONSTRAINT uniq_consumers0uuid UNIQUE (uuid),
    CONSTRAINT consumers_consumer_type_id_fkey
        FOREIGN KEY (consumer_type_id) REFERENCES consumer_types (id)
);
CREATE INDEX consumers_project_id_uuid_idx
    ON consumers (project_id, uuid);
CREATE INDEX consumers_project_id_user_id_uuid_idx
    ON consumers (project_id, user_id, uuid);
CREATE INDEX consumers_consumer_type_id_idx
    ON consumers (consumer_type_id);

COMMIT;
