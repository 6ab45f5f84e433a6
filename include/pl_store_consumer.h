/* Licensed under the Apache License, Version 2.0.
 *
 * pl_store_consumer.h: consumers and what they refer to: projects, users
 * and consumer types (placement's objects/consumer.py, project.py,
 * user.py, consumer_type.py). All of them are created on first use; a
 * concurrent first use of the same external id or uuid is not an error:
 * the loser of the unique constraint re-reads the winner's row. The
 * *_ensure and create functions run inside the request's write
 * transaction (pl_store_allocation_write): their INSERTs are wrapped in a
 * savepoint, so a lost race does not abort it, and what they create goes
 * away with it when the write fails. (Upstream creates them in separate
 * transactions and deletes the consumer after a failure.)
 */
#ifndef PL_STORE_CONSUMER_H
#define PL_STORE_CONSUMER_H

#include <apr_tables.h>
#include "pl_store.h"

typedef struct pl_consumer_t {
    apr_int64_t id;
    const char *uuid;
    apr_int64_t project_id;
    apr_int64_t user_id;
    const char *project_external_id;
    const char *user_external_id;
    apr_int64_t generation;
    apr_int64_t type_id;   /* 0: none (NULL, "unknown") */
    const char *type_name; /* "unknown" when type_id is 0 */
    const char *created_at;
    const char *updated_at;
} pl_consumer_t;

/**
 * The id of the project (user, consumer type) with this external id
 * (name), created if missing.
 * @return APR_SUCCESS and *pid; database errors.
 */
apr_status_t pl_store_project_ensure(pl_db_t *db, apr_pool_t *p,
                                     const char *external_id, apr_int64_t *pid);
apr_status_t pl_store_user_ensure(pl_db_t *db, apr_pool_t *p,
                                  const char *external_id, apr_int64_t *pid);
apr_status_t pl_store_consumer_type_ensure(pl_db_t *db, apr_pool_t *p,
                                           const char *name, apr_int64_t *pid);

/**
 * The consumer with this uuid, with its project, user and type.
 * @return APR_SUCCESS and *pc; APR_ENOENT; database errors.
 */
apr_status_t pl_store_consumer_get(pl_db_t *db, apr_pool_t *p, const char *uuid,
                                   pl_consumer_t **pc);

/* For a statement that reads consumers (as c) with the rest of a row:
 * their columns, with their project's, user's and type's names, and the
 * joins that give them; pl_store_consumer_from_row reads the columns of
 * row i from column col on. */
#define PL_CONSUMER_COLUMNS                                      \
    "c.id, c.uuid, c.project_id, c.user_id, p.external_id, "     \
    "u.external_id, c.generation, c.consumer_type_id, ct.name, " \
    "c.created_at, c.updated_at"
#define PL_CONSUMER_JOINS                     \
    "JOIN projects p ON p.id = c.project_id " \
    "JOIN users u ON u.id = c.user_id "       \
    "LEFT JOIN consumer_types ct ON ct.id = c.consumer_type_id "
pl_consumer_t *pl_store_consumer_from_row(apr_pool_t *p, const pl_rows_t *rows,
                                          int i, int col);

/** What a write names a consumer by, and (out) the ids of those names
 *  found. */
typedef struct pl_consumer_names_t {
    const char *uuid;
    const char *project_external_id;
    const char *user_external_id;
    const char *type_name; /* may be NULL */
    /* out: 0 where no row has the name */
    apr_int64_t project_id;
    apr_int64_t user_id;
    apr_int64_t type_id;
} pl_consumer_names_t;

/**
 * In one statement: the ids of the project, user and consumer type n
 * names, and the consumer n->uuid as pl_store_consumer_get gives it
 * (*pc NULL when it does not exist). Nothing is created.
 * @return APR_SUCCESS; database errors.
 */
apr_status_t pl_store_consumer_resolve(pl_db_t *db, apr_pool_t *p,
                                       pl_consumer_names_t *n,
                                       pl_consumer_t **pc);

/**
 * Create the consumer uuid at generation (0; a write that would bump it
 * right after, in its transaction: 1, and updated_at set, as the bump
 * would have). If another request created
 * it first, read that one instead (and set its type to type_id when it
 * differs, as upstream does); *pcreated says which happened.
 * type_id 0: NULL. A consumer this call created is not read back: its
 * project's and user's external ids and its type's name are not set.
 * On PostgreSQL and SQLite no savepoint is taken (ON CONFLICT).
 * @return APR_SUCCESS and *pc; database errors.
 */
apr_status_t pl_store_consumer_create(pl_db_t *db, apr_pool_t *p,
                                      const char *uuid, apr_int64_t project_id,
                                      apr_int64_t user_id, apr_int64_t type_id,
                                      apr_int64_t generation,
                                      pl_consumer_t **pc, int *pcreated);

/**
 * Set project, user and type of c (its fields) without changing its
 * generation; only if the generation still matches (the later
 * pl_store_consumer_bump detects the conflict otherwise).
 */
apr_status_t pl_store_consumer_update(pl_db_t *db, const pl_consumer_t *c);

/**
 * Compare-and-swap the generation of c; incremented in c on success.
 * @return APR_SUCCESS; PL_ECONFLICT; database errors.
 */
apr_status_t pl_store_consumer_bump(pl_db_t *db, pl_consumer_t *c);

/**
 * Delete those of the consumers (const char * uuids) that have no
 * allocation left.
 */
apr_status_t pl_store_consumer_delete_unused(pl_db_t *db, apr_pool_t *p,
                                             const apr_array_header_t *uuids);

#endif /* PL_STORE_CONSUMER_H */
