/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_rc.h: resource classes (placement's objects/resource_class.py).
 * Standard classes have fixed ids (their index in os-resource-classes);
 * custom ones (CUSTOM_*) start at PL_CUSTOM_RC_MIN_ID.
 */
#ifndef PL_STORE_RC_H
#define PL_STORE_RC_H

#include "pl_store.h"

/**
 * The id of the resource class called name.
 * @return APR_SUCCESS and *pid; APR_ENOENT; database errors.
 */
apr_status_t pl_store_rc_id(pl_db_t *db, apr_pool_t *p, const char *name,
                            apr_int64_t *pid);

#endif /* PL_STORE_RC_H */
