/* Licensed under the Apache License, Version 2.0.
 *
 * pl_policy_rules.c: the registered policy rules of placement, as data:
 * name, default check string, scope types and deprecated rule, exactly as
 * the files of placement/policies/ declare them in
 *   - 8.0.0 (Zed): system-scoped readers and admins; the five base rules
 *     fall back to the deprecated "role:admin" while enforce_new_defaults
 *     is off. The API rules have no deprecated rule of their own: they
 *     reach "role:admin" through the base rules, so overriding a base rule
 *     changes every API rule that uses it, as upstream.
 *   - 9.0.0 (2023.1): every rule project-scoped; admin or the service
 *     role for everything, the service role alone for the reshaper,
 *     project readers for their own usages.
 *   - 2026.1 (placement master, 7ad9ef07): the same table, unchanged since
 *     9.0.0; what changed is around it (oslo.policy 4.4.0 turned
 *     enforce_scope and enforce_new_defaults on by default and deprecated
 *     enforce_scope, which 5.0.0 still honours and 6.0.0, on master,
 *     removed), which pl_config.c applies.
 * Upstream names the deprecated rule "rule:admin_api" (with the prefix);
 * it is kept, since oslo.policy looks that exact name up in policy files.
 */
#include <string.h>

#include "pl_policy.h"

#define SYS PL_POLICY_SCOPE_SYSTEM
#define PRJ PL_POLICY_SCOPE_PROJECT
#define DEP_ADMIN "rule:admin_api", "role:admin"

/* ---- placement 8.0.0 ---- */

#define Z_ADMIN "rule:system_admin_api"
#define Z_READER "rule:system_reader_api"

static const pl_policy_default_t zed[] = {
    /* policies/base.py */
    { "admin_api", "role:admin", SYS, NULL, NULL },
    { "system_admin_api", "role:admin and system_scope:all", 0, DEP_ADMIN },
    { "system_reader_api", "role:reader and system_scope:all", 0, DEP_ADMIN },
    { "project_reader_api", "role:reader and project_id:%(project_id)s", 0,
      DEP_ADMIN },
    { "system_or_project_reader",
      "rule:system_reader_api or rule:project_reader_api", 0, DEP_ADMIN },
    /* resource_provider.py */
    { "placement:resource_providers:list", Z_READER, SYS, NULL, NULL },
    { "placement:resource_providers:create", Z_ADMIN, SYS, NULL, NULL },
    { "placement:resource_providers:show", Z_READER, SYS, NULL, NULL },
    { "placement:resource_providers:update", Z_ADMIN, SYS, NULL, NULL },
    { "placement:resource_providers:delete", Z_ADMIN, SYS, NULL, NULL },
    /* resource_class.py */
    { "placement:resource_classes:list", Z_READER, SYS, NULL, NULL },
    { "placement:resource_classes:create", Z_ADMIN, SYS, NULL, NULL },
    { "placement:resource_classes:show", Z_READER, SYS, NULL, NULL },
    { "placement:resource_classes:update", Z_ADMIN, SYS, NULL, NULL },
    { "placement:resource_classes:delete", Z_ADMIN, SYS, NULL, NULL },
    /* inventory.py */
    { "placement:resource_providers:inventories:list", Z_READER, SYS, NULL,
      NULL },
    { "placement:resource_providers:inventories:create", Z_ADMIN, SYS, NULL,
      NULL },
    { "placement:resource_providers:inventories:show", Z_READER, SYS, NULL,
      NULL },
    { "placement:resource_providers:inventories:update", Z_ADMIN, SYS, NULL,
      NULL },
    { "placement:resource_providers:inventories:delete", Z_ADMIN, SYS, NULL,
      NULL },
    /* aggregate.py */
    { "placement:resource_providers:aggregates:list", Z_READER, SYS, NULL,
      NULL },
    { "placement:resource_providers:aggregates:update", Z_ADMIN, SYS, NULL,
      NULL },
    /* usage.py */
    { "placement:resource_providers:usages", Z_READER, SYS, NULL, NULL },
    { "placement:usages", "rule:system_or_project_reader", SYS | PRJ, NULL,
      NULL },
    /* trait.py */
    { "placement:traits:list", Z_READER, SYS, NULL, NULL },
    { "placement:traits:show", Z_READER, SYS, NULL, NULL },
    { "placement:traits:update", Z_ADMIN, SYS, NULL, NULL },
    { "placement:traits:delete", Z_ADMIN, SYS, NULL, NULL },
    { "placement:resource_providers:traits:list", Z_READER, SYS, NULL, NULL },
    { "placement:resource_providers:traits:update", Z_ADMIN, SYS, NULL, NULL },
    { "placement:resource_providers:traits:delete", Z_ADMIN, SYS, NULL, NULL },
    /* allocation.py */
    { "placement:allocations:manage", Z_ADMIN, SYS, NULL, NULL },
    { "placement:allocations:list", Z_READER, SYS, NULL, NULL },
    { "placement:allocations:update", Z_ADMIN, SYS, NULL, NULL },
    { "placement:allocations:delete", Z_ADMIN, SYS, NULL, NULL },
    { "placement:resource_providers:allocations:list", Z_READER, SYS, NULL,
      NULL },
    /* allocation_candidate.py, reshaper.py */
    { "placement:allocation_candidates:list", Z_READER, SYS, NULL, NULL },
    { "placement:reshaper:reshape", Z_ADMIN, SYS, NULL, NULL },
    { NULL }
};

/* ---- placement 9.0.0 ---- */

#define A_OR_S "rule:admin_or_service_api"

static const pl_policy_default_t antelope[] = {
    /* policies/base.py */
    { "admin_api", "role:admin", PRJ, NULL, NULL },
    { "service_api", "role:service", PRJ, DEP_ADMIN },
    { "admin_or_service_api", "role:admin or role:service", PRJ, DEP_ADMIN },
    { "project_reader_api", "role:reader and project_id:%(project_id)s", 0,
      DEP_ADMIN },
    { "admin_or_project_reader_or_service_api",
      "role:admin or rule:project_reader_api or role:service", PRJ, DEP_ADMIN },
    /* resource_provider.py */
    { "placement:resource_providers:list", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_providers:create", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_providers:show", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_providers:update", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_providers:delete", A_OR_S, PRJ, NULL, NULL },
    /* resource_class.py */
    { "placement:resource_classes:list", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_classes:create", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_classes:show", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_classes:update", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_classes:delete", A_OR_S, PRJ, NULL, NULL },
    /* inventory.py */
    { "placement:resource_providers:inventories:list", A_OR_S, PRJ, NULL,
      NULL },
    { "placement:resource_providers:inventories:create", A_OR_S, PRJ, NULL,
      NULL },
    { "placement:resource_providers:inventories:show", A_OR_S, PRJ, NULL,
      NULL },
    { "placement:resource_providers:inventories:update", A_OR_S, PRJ, NULL,
      NULL },
    { "placement:resource_providers:inventories:delete", A_OR_S, PRJ, NULL,
      NULL },
    /* aggregate.py */
    { "placement:resource_providers:aggregates:list", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_providers:aggregates:update", A_OR_S, PRJ, NULL,
      NULL },
    /* usage.py: admins in any project see any project's usages (legacy
     * admin), readers their own project's */
    { "placement:resource_providers:usages", A_OR_S, PRJ, NULL, NULL },
    { "placement:usages", "rule:admin_or_project_reader_or_service_api", PRJ,
      NULL, NULL },
    /* trait.py */
    { "placement:traits:list", A_OR_S, PRJ, NULL, NULL },
    { "placement:traits:show", A_OR_S, PRJ, NULL, NULL },
    { "placement:traits:update", A_OR_S, PRJ, NULL, NULL },
    { "placement:traits:delete", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_providers:traits:list", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_providers:traits:update", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_providers:traits:delete", A_OR_S, PRJ, NULL, NULL },
    /* allocation.py */
    { "placement:allocations:manage", A_OR_S, PRJ, NULL, NULL },
    { "placement:allocations:list", A_OR_S, PRJ, NULL, NULL },
    { "placement:allocations:update", A_OR_S, PRJ, NULL, NULL },
    { "placement:allocations:delete", A_OR_S, PRJ, NULL, NULL },
    { "placement:resource_providers:allocations:list", A_OR_S, PRJ, NULL,
      NULL },
    /* allocation_candidate.py; reshaper.py: the service role only (nova's
     * compute service reshapes) */
    { "placement:allocation_candidates:list", A_OR_S, PRJ, NULL, NULL },
    { "placement:reshaper:reshape", "rule:service_api", PRJ, NULL, NULL },
    { NULL }
};

const pl_policy_default_t *pl_policy_defaults(int set)
{
    switch (set) {
    case PL_POLICY_SET_ZED:
        return zed;
    case PL_POLICY_SET_2023_1:
    case PL_POLICY_SET_2026_1:
        return antelope;
    }
    return NULL;
}

int pl_policy_is_known(const char *name)
{
    int set;
    const pl_policy_default_t *d;

    for (set = 0; set < PL_POLICY_NSETS; set++) {
        for (d = pl_policy_defaults(set); d->name; d++) {
            if (!strcmp(d->name, name)) {
                return 1;
            }
        }
    }
    return 0;
}
