-- Revision a082b8bb98d0 (placement 10.0.0, 2023.2): five indexes that a
-- unique constraint already covers are dropped.

DROP INDEX inventories_resource_provider_id_idx;
DROP INDEX inventories_resource_provider_resource_class_idx;
DROP INDEX ix_placement_aggregates_uuid;
DROP INDEX resource_providers_name_idx;
DROP INDEX resource_providers_uuid_idx;
