/* Licensed under the Apache License, Version 2.0.
 *
 * pl_mv.h: placement microversions. A microversion is stored as one int,
 * major * 1000 + minor, so comparisons are plain integer comparisons.
 */
#ifndef PL_MV_H
#define PL_MV_H

#include <apr_pools.h>
#include "pl_status.h"

#define PL_MV(major, minor) ((major)*1000 + (minor))
#define PL_MV_MIN PL_MV(1, 0)
#define PL_MV_MAX PL_MV(1, 39)

/**
 * Parse the value(s) of the OpenStack-API-Version request header(s) and
 * pick the placement microversion. header may be NULL (no header): the
 * minimum version. Returns APR_SUCCESS and *pmv, or APR_EINVAL (malformed:
 * 400) or PL_ENOTACCEPTABLE (outside PL_MV_MIN..PL_MV_MAX: 406) with
 * *perr set to upstream's detail text, allocated from p.
 */
apr_status_t pl_mv_parse(apr_pool_t *p, const char *header, int *pmv,
                         const char **perr);

/** "1.39" for PL_MV(1, 39), allocated from p. */
const char *pl_mv_str(apr_pool_t *p, int mv);

#endif /* PL_MV_H */
