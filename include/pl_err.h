/* Licensed under the Apache License, Version 2.0.
 *
 * pl_err.h: the placement.* error codes (errors[].code from 1.23) and the
 * way a handler reports a failure. Never change or reuse a code string:
 * clients match them (docs/errors.md lists them).
 */
#ifndef PL_ERR_H
#define PL_ERR_H

#define PL_ERRC_DEFAULT "placement.undefined_code"
#define PL_ERRC_INVENTORY_INUSE "placement.inventory.inuse"
#define PL_ERRC_CONCURRENT_UPDATE "placement.concurrent_update"
#define PL_ERRC_DUPLICATE_NAME "placement.duplicate_name"
#define PL_ERRC_PROVIDER_IN_USE "placement.resource_provider.inuse"
#define PL_ERRC_PROVIDER_CANNOT_DELETE_PARENT \
    "placement.resource_provider.cannot_delete_parent"
#define PL_ERRC_PROVIDER_NOT_FOUND "placement.resource_provider.not_found"
#define PL_ERRC_QUERY_DUPLICATE_KEY "placement.query.duplicate_key"
#define PL_ERRC_QUERY_BAD_VALUE "placement.query.bad_value"
#define PL_ERRC_QUERY_MISSING_VALUE "placement.query.missing_value"

#endif /* PL_ERR_H */
