-- mod_placement: MySQL / MariaDB schema.
--
-- The same schema that upstream OpenStack Placement 8.0.0 builds with
-- `placement-manage db sync` (alembic head 422ece571366) on a database
-- whose default character set is utf8mb4: the same tables, columns,
-- types, nullability, defaults, AUTO_INCREMENT columns, primary keys,
-- unique keys, foreign keys and index names, so that mod_placement and
-- upstream placement can serve the same database.
-- t/schema/compare.sh checks this file against the real migration.
--
-- Load once into an empty database:
--     mysql placement < sql/mysql/schema.sql
-- Create that database as "CREATE DATABASE placement CHARACTER SET utf8mb4"
-- (the Debian server default).  Alembic gives no engine or charset of its
-- own, so upstream tables take the database default; here they say
-- InnoDB / utf8mb4 explicitly, which is the same thing on such a database.
--
-- Notes:
-- * resource_classes.id is AUTO_INCREMENT, but the standard classes are
--   inserted with explicit ids starting at VCPU = 0: whoever inserts id 0
--   must run with SQL_MODE NO_AUTO_VALUE_ON_ZERO, or MySQL hands out a
--   fresh id instead of 0.  Custom classes get explicit ids from 10000.
-- * foreign keys unnamed upstream get InnoDB's generated names
--   (<table>_ibfk_<n>); they are spelled out here with the same names.
-- * indexes are declared inside CREATE TABLE so that InnoDB never makes
--   implicit indexes of its own for the foreign keys.
-- * several indexes duplicate a unique key or a primary key prefix; they
--   exist upstream, so they exist here.

-- The alembic bookkeeping table, stamped at the head revision so that
-- a later `placement-manage db sync` sees an up-to-date database.
CREATE TABLE alembic_version (
    version_num varchar(32) NOT NULL,
    PRIMARY KEY (version_num)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
INSERT INTO alembic_version (version_num) VALUES ('422ece571366');

-- Kinds of resource (VCPU, MEMORY_MB, CUSTOM_*).
CREATE TABLE resource_classes (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    id int(11) NOT NULL AUTO_INCREMENT,
    name varchar(255) NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uniq_resource_classes0name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Resource providers, arranged in trees through root/parent ids.
CREATE TABLE resource_providers (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    id int(11) NOT NULL AUTO_INCREMENT,
    uuid varchar(36) NOT NULL,
    name varchar(200) DEFAULT NULL,
    generation int(11) DEFAULT NULL,
    root_provider_id int(11) DEFAULT NULL,
    parent_provider_id int(11) DEFAULT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uniq_resource_providers0uuid (uuid),
    UNIQUE KEY uniq_resource_providers0name (name),
    KEY resource_providers_name_idx (name),
    KEY resource_providers_parent_provider_id_idx (parent_provider_id),
    KEY resource_providers_root_provider_id_idx (root_provider_id),
    KEY resource_providers_uuid_idx (uuid),
    CONSTRAINT resource_providers_ibfk_1
        FOREIGN KEY (parent_provider_id) REFERENCES resource_providers (id),
    CONSTRAINT resource_providers_ibfk_2
        FOREIGN KEY (root_provider_id) REFERENCES resource_providers (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Inventory: one row per (provider, resource class).
CREATE TABLE inventories (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    id int(11) NOT NULL AUTO_INCREMENT,
    resource_provider_id int(11) NOT NULL,
    resource_class_id int(11) NOT NULL,
    total int(11) NOT NULL,
    reserved int(11) NOT NULL,
    min_unit int(11) NOT NULL,
    max_unit int(11) NOT NULL,
    step_size int(11) NOT NULL,
    allocation_ratio float NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uniq_inventories0resource_provider_resource_class
        (resource_provider_id, resource_class_id),
    KEY inventories_resource_class_id_idx (resource_class_id),
    KEY inventories_resource_provider_id_idx (resource_provider_id),
    KEY inventories_resource_provider_resource_class_idx
        (resource_provider_id, resource_class_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Allocations: amounts of a class a consumer (by uuid) uses on a provider.
CREATE TABLE allocations (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    id int(11) NOT NULL AUTO_INCREMENT,
    resource_provider_id int(11) NOT NULL,
    consumer_id varchar(36) NOT NULL,
    resource_class_id int(11) NOT NULL,
    used int(11) NOT NULL,
    PRIMARY KEY (id),
    KEY allocations_resource_provider_class_used_idx
        (resource_provider_id, resource_class_id, used),
    KEY allocations_resource_class_id_idx (resource_class_id),
    KEY allocations_consumer_id_idx (consumer_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Aggregates (by uuid) and their provider members.
CREATE TABLE placement_aggregates (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    id int(11) NOT NULL AUTO_INCREMENT,
    uuid varchar(36) DEFAULT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uniq_placement_aggregates0uuid (uuid),
    KEY ix_placement_aggregates_uuid (uuid)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE resource_provider_aggregates (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    resource_provider_id int(11) NOT NULL,
    aggregate_id int(11) NOT NULL,
    PRIMARY KEY (resource_provider_id, aggregate_id),
    KEY resource_provider_aggregates_aggregate_id_idx (aggregate_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Traits (standard and CUSTOM_*) and the providers that have them.
CREATE TABLE traits (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    id int(11) NOT NULL AUTO_INCREMENT,
    name varchar(255) NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uniq_traits0name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE resource_provider_traits (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    trait_id int(11) NOT NULL,
    resource_provider_id int(11) NOT NULL,
    PRIMARY KEY (trait_id, resource_provider_id),
    KEY resource_provider_traits_resource_provider_trait_idx
        (resource_provider_id, trait_id),
    CONSTRAINT resource_provider_traits_ibfk_1
        FOREIGN KEY (resource_provider_id) REFERENCES resource_providers (id),
    CONSTRAINT resource_provider_traits_ibfk_2
        FOREIGN KEY (trait_id) REFERENCES traits (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Keystone projects and users, by their external (keystone) id.
CREATE TABLE projects (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    id int(11) NOT NULL AUTO_INCREMENT,
    external_id varchar(255) NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uniq_projects0external_id (external_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE users (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    id int(11) NOT NULL AUTO_INCREMENT,
    external_id varchar(255) NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uniq_users0external_id (external_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

-- Consumer types (microversion 1.38) and consumers.
CREATE TABLE consumer_types (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    id int(11) NOT NULL AUTO_INCREMENT,
    name varchar(255) NOT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uniq_consumer_types0name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;

CREATE TABLE consumers (
    created_at datetime DEFAULT NULL,
    updated_at datetime DEFAULT NULL,
    id int(11) NOT NULL AUTO_INCREMENT,
    uuid varchar(36) NOT NULL,
    project_id int(11) NOT NULL,
    user_id int(11) NOT NULL,
    generation int(11) NOT NULL DEFAULT 0,
    consumer_type_id int(11) DEFAULT NULL,
    PRIMARY KEY (id),
    UNIQUE KEY uniq_consumers0uuid (uuid),
    KEY consumers_project_id_user_id_uuid_idx (project_id, user_id, uuid),
    KEY consumers_project_id_uuid_idx (project_id, uuid),
    KEY consumers_consumer_type_id_idx (consumer_type_id),
    CONSTRAINT consumers_consumer_type_id_fkey
        FOREIGN KEY (consumer_type_id) REFERENCES consumer_types (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;
