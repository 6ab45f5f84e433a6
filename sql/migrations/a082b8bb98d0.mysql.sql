-- Revision a082b8bb98d0 (placement 10.0.0, 2023.2) on MySQL: five indexes
-- that a unique key already covers are dropped (MySQL names the table).

DROP INDEX inventories_resource_provider_id_idx ON inventories;
DROP INDEX inventories_resource_provider_resource_class_idx ON inventories;
DROP INDEX ix_placement_aggregates_uuid ON placement_aggregates;
DROP INDEX resource_providers_name_idx ON resource_providers;
DROP INDEX resource_providers_uuid_idx ON resource_providers;
