/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_std.h: the standard resource classes and traits in a
 * database (store_std.c), and the file of standard traits newer than the
 * build (store_std_file.c, PlacementStandardTraitsFile).
 */
#ifndef PL_STORE_STD_H
#define PL_STORE_STD_H

#include <apr_pools.h>
#include <apr_tables.h>
#include "pl_db.h"

/** The longest trait name the schema holds (traits.name VARCHAR(255)). */
#define PL_TRAIT_NAME_MAX 255

/** The largest standard-traits file read, in bytes: a thousand times
 *  today's whole os-traits list would still fit. */
#define PL_STD_FILE_MAX ((apr_size_t)1024 * 1024)

/**
 * Read a file of standard trait names: one a line, blank lines and lines
 * starting with '#' skipped, spaces around a name ignored. Each name must
 * be one os-traits could define: A-Z, 0-9 and _, a letter first, at most
 * PL_TRAIT_NAME_MAX characters, not CUSTOM_.
 * @param pnames the names (const char *), from p
 * @param perr on failure, "FILE:LINE: why" (or "FILE: why"), from p
 */
apr_status_t pl_std_traits_file_read(apr_pool_t *p, const char *path,
                                     apr_array_header_t **pnames,
                                     const char **perr);

/**
 * Insert the standard resource classes and traits the database lacks:
 * the built-in lists (pl_std_data.h) and extra_traits (may be NULL). One
 * transaction; never deletes or changes a row; safe while other processes
 * and hosts do the same. added_classes / added_traits (may be NULL) get
 * the names this call inserted (const char *).
 */
apr_status_t pl_store_std_insert(pl_db_t *db, apr_pool_t *p,
                                 const apr_array_header_t *extra_traits,
                                 apr_array_header_t *added_classes,
                                 apr_array_header_t *added_traits);

/**
 * pl_store_std_insert once per process for each (where, extra_traits):
 * where names the database (the httpd server whose mod_dbd pool db came
 * from), extra_traits is compared by address (a configuration's list).
 */
apr_status_t pl_store_std_sync(pl_db_t *db, apr_pool_t *ptemp,
                               const void *where,
                               const apr_array_header_t *extra_traits);

/** Create the per-process state of pl_store_std_sync (child_init). */
apr_status_t pl_store_std_sync_init(apr_pool_t *pchild);

#endif /* PL_STORE_STD_H */
