-- Revision b4ed3a175331 (initial): the tables placement had when it left
-- nova (Stein), in the order and form upstream's first alembic revision
-- makes them. Every dialect: @DATETIME@ and @ID@ are replaced by the tool
-- (PostgreSQL: TIMESTAMP WITHOUT TIME ZONE, SERIAL NOT NULL; MySQL:
-- DATETIME, INTEGER NOT NULL AUTO_INCREMENT; SQLite: DATETIME, INTEGER
-- NOT NULL). One statement per ';' at the end of a line.

CREATE TABLE allocations (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    id @ID@,
    resource_provider_id INTEGER NOT NULL,
    consumer_id VARCHAR(36) NOT NULL,
    resource_class_id INTEGER NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (id)
);
CREATE INDEX allocations_resource_provider_class_used_idx
    ON allocations (resource_provider_id, resource_class_id, used);
CREATE INDEX allocations_resource_class_id_idx ON allocations (resource_class_id);
CREATE INDEX allocations_consumer_id_idx ON allocations (consumer_id);

CREATE TABLE consumers (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    id @ID@,
    uuid VARCHAR(36) NOT NULL,
    project_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    generation INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (id),
    CONSTRAINT uniq_consumers0uuid UNIQUE (uuid)
);
CREATE INDEX consumers_project_id_user_id_uuid_idx
    ON consumers (project_id, user_id, uuid);
CREATE INDEX consumers_project_id_uuid_idx ON consumers (project_id, uuid);

CREATE TABLE inventories (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    id @ID@,
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
CREATE INDEX inventories_resource_class_id_idx ON inventories (resource_class_id);
CREATE INDEX inventories_resource_provider_id_idx
    ON inventories (resource_provider_id);
CREATE INDEX inventories_resource_provider_resource_class_idx
    ON inventories (resource_provider_id, resource_class_id);

CREATE TABLE placement_aggregates (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    id @ID@,
    uuid VARCHAR(36),
    PRIMARY KEY (id),
    CONSTRAINT uniq_placement_aggregates0uuid UNIQUE (uuid)
);
CREATE INDEX ix_placement_aggregates_uuid ON placement_aggregates (uuid);

CREATE TABLE projects (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    id @ID@,
    external_id VARCHAR(255) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uniq_projects0external_id UNIQUE (external_id)
);

CREATE TABLE resource_classes (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    id @ID@,
    name VARCHAR(255) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uniq_resource_classes0name UNIQUE (name)
);

CREATE TABLE resource_provider_aggregates (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    resource_provider_id INTEGER NOT NULL,
    aggregate_id INTEGER NOT NULL,
    PRIMARY KEY (resource_provider_id, aggregate_id)
);
CREATE INDEX resource_provider_aggregates_aggregate_id_idx
    ON resource_provider_aggregates (aggregate_id);

CREATE TABLE resource_providers (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    id @ID@,
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
CREATE INDEX resource_providers_name_idx ON resource_providers (name);
CREATE INDEX resource_providers_parent_provider_id_idx
    ON resource_providers (parent_provider_id);
CREATE INDEX resource_providers_root_provider_id_idx
    ON resource_providers (root_provider_id);
CREATE INDEX resource_providers_uuid_idx ON resource_providers (uuid);

CREATE TABLE traits (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    id @ID@,
    name VARCHAR(255) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uniq_traits0name UNIQUE (name)
);

CREATE TABLE users (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    id @ID@,
    external_id VARCHAR(255) NOT NULL,
    PRIMARY KEY (id),
    CONSTRAINT uniq_users0external_id UNIQUE (external_id)
);

CREATE TABLE resource_provider_traits (
    created_at @DATETIME@,
    updated_at @DATETIME@,
    trait_id INTEGER NOT NULL,
    resource_provider_id INTEGER NOT NULL,
    PRIMARY KEY (trait_id, resource_provider_id),
    FOREIGN KEY (resource_provider_id) REFERENCES resource_providers (id),
    FOREIGN KEY (trait_id) REFERENCES traits (id)
);
CREATE INDEX resource_provider_traits_resource_provider_trait_idx
    ON resource_provider_traits (resource_provider_id, trait_id);
