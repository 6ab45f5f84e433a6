/* Licensed under the Apache License, Version 2.0.
 *
 * pl_status.h: the apr_status_t codes of mod_placement beyond APR's own.
 * Pure layers (pl_mv, pl_qs, pl_util, pl_jsonschema, store_*, ac_*) return
 * these; the handler glue turns them into HTTP status codes in one place.
 * APR's own codes keep their meaning: APR_ENOENT not found, APR_EEXIST
 * duplicate, APR_EINVAL bad input (400).
 */
#ifndef PL_STATUS_H
#define PL_STATUS_H

#include <apr_errno.h>

#define PL_ESTART (APR_OS_START_USERERR + 9000)
/** A generation did not match (compare-and-swap lost): 409. */
#define PL_ECONFLICT (PL_ESTART + 1)
/** Something still uses what is being removed or shrunk: 409. */
#define PL_EINUSE (PL_ESTART + 2)
/** A microversion outside the supported range: 406. */
#define PL_ENOTACCEPTABLE (PL_ESTART + 3)
/** The database reported a deadlock or serialization failure: retry. */
#define PL_EDEADLOCK (PL_ESTART + 4)
/** Any other database failure: 500. */
#define PL_EDB (PL_ESTART + 5)
/** Not enough capacity for an allocation: 409. */
#define PL_ECAPACITY (PL_ESTART + 6)

#endif /* PL_STATUS_H */
