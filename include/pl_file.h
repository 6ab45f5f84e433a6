/* Licensed under the Apache License, Version 2.0.
 *
 * pl_file.h: reading a whole configuration file, bounded (pure: APR only).
 */
#ifndef PL_FILE_H
#define PL_FILE_H

#include <apr_pools.h>

/**
 * Read the regular file path whole, refusing one larger than max bytes.
 * @param pdata the bytes, NUL-terminated, from p; *plen their count
 * @param perr on failure, "PATH: why", from p
 */
apr_status_t pl_file_read(apr_pool_t *p, const char *path, apr_size_t max,
                          char **pdata, apr_size_t *plen, const char **perr);

#endif /* PL_FILE_H */
