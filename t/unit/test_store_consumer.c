/* Licensed under the Apache License, Version 2.0.
 *
 * test_store_consumer.c: consumers and what they refer to (store_consumer.c)
 * on a real SQLite database in memory with the project's schema. Projects,
 * users and consumer types are made once and found again; a consumer is
 * created at generation 0 and read back with its project, user and type;
 * creating it again finds the first row; its generation is a
 * compare-and-swap that a stale copy loses (PL_ECONFLICT) and an update
 * from a stale copy changes nothing; consumers are deleted only when no
 * allocation is left.
 */
#include <apr_general.h>
#include <apr_strings.h>
#include <apr_dbd.h>

#include "pl_store_consumer.h"
#include "pl_store_allocation.h"
#include "store_fixture.h"
#include "tap.h"

#define C1 "c0000000-0000-0000-0000-000000000001"
#define C2 "c0000000-0000-0000-0000-000000000002"
#define C3 "c0000000-0000-0000-0000-000000000003"
#define C4 "c0000000-0000-0000-0000-000000000004"
#define C5 "c0000000-0000-0000-0000-000000000005"

static apr_pool_t *root;
static pl_db_t *db;

static apr_int64_t consumers_named(apr_pool_t *p, const char *uuid)
{
    return fixture_int(
        db, p, "SELECT COUNT(*) FROM consumers WHERE uuid = '%s'", uuid);
}

/* An allocation row for consumer uuid, written directly: the consumer
 * tests only need one to exist. */
static void give_allocation(apr_pool_t *p, const char *uuid)
{
    fixture_exec(db, apr_psprintf(p,
                                  "INSERT INTO allocations "
                                  "(resource_provider_id, consumer_id, "
                                  "resource_class_id, used) "
                                  "VALUES (1, '%s', 0, 1)",
                                  uuid));
}

static void test_ensure(void)
{
    apr_int64_t a = 0, again = 0, b = 0, u = 0, u2 = 0, t = 0, t2 = 0;
    apr_pool_t *p;

    apr_pool_create(&p, root);
    tap_note("projects, users and consumer types");
    TAP_IS_INT(pl_store_project_ensure(db, p, "proj-a", &a), APR_SUCCESS,
               "a new project is made");
    TAP_IS_INT(fixture_int(db, p,
                           "SELECT id FROM projects "
                           "WHERE external_id = 'proj-a'"),
               a, "its id is the row's id");
    TAP_IS_INT(pl_store_project_ensure(db, p, "proj-a", &again), APR_SUCCESS,
               "the same project again");
    TAP_IS_INT(again, a, "is found, with the same id");
    TAP_IS_INT(pl_store_project_ensure(db, p, "proj-b", &b), APR_SUCCESS,
               "another project");
    TAP_OK(b != a, "has an id of its own");
    TAP_IS_INT(fixture_int(db, p, "SELECT COUNT(*) FROM projects"), 2,
               "two project rows, no duplicate");

    TAP_IS_INT(pl_store_user_ensure(db, p, "user-a", &u), APR_SUCCESS,
               "a new user is made");
    TAP_IS_INT(pl_store_user_ensure(db, p, "user-a", &u2), APR_SUCCESS,
               "the same user again");
    TAP_IS_INT(u2, u, "is found, with the same id");
    TAP_IS_INT(fixture_int(db, p, "SELECT COUNT(*) FROM users"), 1,
               "one user row");

    TAP_IS_INT(pl_store_consumer_type_ensure(db, p, "INSTANCE", &t),
               APR_SUCCESS, "a new consumer type is made");
    TAP_IS_INT(pl_store_consumer_type_ensure(db, p, "INSTANCE", &t2),
               APR_SUCCESS, "the same type again");
    TAP_IS_INT(t2, t, "is found, with the same id");
    TAP_IS_STR(fixture_text(db, p,
                            "SELECT name FROM consumer_types WHERE id = %d",
                            (int)t),
               "INSTANCE", "the type's row has its name");
    apr_pool_destroy(p);
}

static void test_create_and_get(void)
{
    apr_int64_t proj = 0, user = 0, type = 0, other_type = 0;
    pl_consumer_t *c = NULL, *got = NULL, *again = NULL;
    apr_int64_t c1_id;
    int created = -1;
    apr_pool_t *p;

    apr_pool_create(&p, root);
    tap_note("create and read back");
    pl_store_project_ensure(db, p, "proj-a", &proj);
    pl_store_user_ensure(db, p, "user-a", &user);
    pl_store_consumer_type_ensure(db, p, "INSTANCE", &type);
    pl_store_consumer_type_ensure(db, p, "MIGRATION", &other_type);

    TAP_IS_INT(pl_store_consumer_get(db, p, C1, &got), APR_ENOENT,
               "an unknown consumer is APR_ENOENT");

    TAP_IS_INT(
        pl_store_consumer_create(db, p, C1, proj, user, type, 0, &c, &created),
        APR_SUCCESS, "create a consumer with a type");
    TAP_IS_INT(created, 1, "it says it created it");
    TAP_OK(c != NULL && c->id > 0, "and gives the row");
    TAP_IS_INT(pl_store_consumer_get(db, p, C1, &got), APR_SUCCESS,
               "read it back");
    if (got == NULL || c == NULL) {
        apr_pool_destroy(p);
        return;
    }
    c1_id = c->id;
    TAP_IS_INT(got->id, c1_id, "same id");
    TAP_IS_STR(got->uuid, C1, "its uuid");
    TAP_IS_INT(got->generation, 0, "generation 0");
    TAP_IS_INT(got->project_id, proj, "its project id");
    TAP_IS_STR(got->project_external_id, "proj-a", "its project's external id");
    TAP_IS_INT(got->user_id, user, "its user id");
    TAP_IS_STR(got->user_external_id, "user-a", "its user's external id");
    TAP_IS_INT(got->type_id, type, "its type id");
    TAP_IS_STR(got->type_name, "INSTANCE", "its type name");
    TAP_OK(got->created_at != NULL, "created_at is set");

    /* without a type: NULL in the row, "unknown" to the reader */
    created = -1;
    TAP_IS_INT(
        pl_store_consumer_create(db, p, C2, proj, user, 0, 0, &c, &created),
        APR_SUCCESS, "create a consumer without a type");
    TAP_IS_INT(fixture_int(db, p,
                           "SELECT COUNT(*) FROM consumers WHERE uuid = '" C2
                           "' AND consumer_type_id IS NULL"),
               1, "its type column is NULL");
    pl_store_consumer_get(db, p, C2, &got);
    TAP_IS_INT(got->type_id, 0, "read back: type id 0");
    TAP_IS_STR(got->type_name, "unknown", "read back: type \"unknown\"");

    /* creating an existing one finds it (a lost race), taking the type */
    created = -1;
    TAP_IS_INT(pl_store_consumer_create(db, p, C1, proj, user, other_type, 0,
                                        &again, &created),
               APR_SUCCESS, "create an existing consumer");
    TAP_IS_INT(created, 0, "it says it did not create it");
    TAP_IS_INT(again ? again->id : -1, c1_id, "and gives the first row");
    TAP_IS_INT(consumers_named(p, C1), 1, "still one row for that uuid");
    pl_store_consumer_get(db, p, C1, &got);
    TAP_IS_STR(got->type_name, "MIGRATION", "its type is the one asked now");
    TAP_IS_INT(got->generation, 0, "its generation did not move");
    apr_pool_destroy(p);
}

static void test_generation(void)
{
    pl_consumer_t *c = NULL, *stale = NULL, *got = NULL;
    apr_int64_t proj = 0, user = 0, proj_b = 0, user_b = 0;
    int created = 0;
    apr_pool_t *p;

    apr_pool_create(&p, root);
    tap_note("the generation compare-and-swap");
    pl_store_project_ensure(db, p, "proj-a", &proj);
    pl_store_user_ensure(db, p, "user-a", &user);
    pl_store_project_ensure(db, p, "proj-b", &proj_b);
    pl_store_user_ensure(db, p, "user-b", &user_b);
    if (pl_store_consumer_create(db, p, C3, proj, user, 0, 0, &c, &created) !=
        APR_SUCCESS) {
        fixture_fail(db, "consumer " C3);
    }
    stale = apr_pmemdup(p, c, sizeof(*c));

    TAP_IS_INT(pl_store_consumer_bump(db, c), APR_SUCCESS,
               "bump at the stored generation");
    TAP_IS_INT(c->generation, 1, "the copy bumped is at 1");
    TAP_IS_INT(fixture_int(db, p,
                           "SELECT generation FROM consumers "
                           "WHERE uuid = '" C3 "'"),
               1, "the row is at 1");

    TAP_IS_INT(pl_store_consumer_bump(db, stale), PL_ECONFLICT,
               "bump from a stale copy (0) is PL_ECONFLICT");
    TAP_IS_INT(stale->generation, 0, "the stale copy keeps its generation");
    TAP_IS_INT(fixture_int(db, p,
                           "SELECT generation FROM consumers "
                           "WHERE uuid = '" C3 "'"),
               1, "the row stays at 1");

    /* update: only at the stored generation, and without bumping it */
    stale->project_id = proj_b;
    stale->user_id = user_b;
    TAP_IS_INT(pl_store_consumer_update(db, stale), APR_SUCCESS,
               "an update from a stale copy runs");
    pl_store_consumer_get(db, p, C3, &got);
    TAP_IS_STR(got->project_external_id, "proj-a",
               "but the stale copy's project is not stored");
    TAP_IS_STR(got->user_external_id, "user-a", "nor its user");

    c->project_id = proj_b;
    c->user_id = user_b;
    TAP_IS_INT(pl_store_consumer_update(db, c), APR_SUCCESS,
               "an update at the stored generation");
    pl_store_consumer_get(db, p, C3, &got);
    TAP_IS_STR(got->project_external_id, "proj-b", "stores the new project");
    TAP_IS_STR(got->user_external_id, "user-b", "and the new user");
    TAP_IS_INT(got->generation, 1, "and leaves the generation");
    apr_pool_destroy(p);
}

static void test_delete(void)
{
    apr_array_header_t *uuids;
    apr_int64_t proj = 0, user = 0;
    pl_consumer_t *c = NULL;
    int created = 0;
    apr_pool_t *p;

    apr_pool_create(&p, root);
    tap_note("deleting");
    pl_store_project_ensure(db, p, "proj-a", &proj);
    pl_store_user_ensure(db, p, "user-a", &user);
    pl_store_consumer_create(db, p, C4, proj, user, 0, 0, &c, &created);
    pl_store_consumer_create(db, p, C5, proj, user, 0, 0, &c, &created);
    give_allocation(p, C5);

    uuids = apr_array_make(p, 3, sizeof(const char *));
    APR_ARRAY_PUSH(uuids, const char *) = C4;
    APR_ARRAY_PUSH(uuids, const char *) = C5;
    APR_ARRAY_PUSH(uuids,
                   const char *) = "c0000000-0000-0000-0000-00000000dead";
    TAP_IS_INT(pl_store_consumer_delete_unused(db, p, uuids), APR_SUCCESS,
               "delete_unused of two consumers and an unknown uuid");
    TAP_IS_INT(consumers_named(p, C4), 0,
               "the one without allocations is gone");
    TAP_IS_INT(consumers_named(p, C5), 1, "the one with an allocation stays");

    TAP_IS_INT(pl_store_allocation_delete_consumer(db, p, C5), APR_SUCCESS,
               "delete the consumer's allocations");
    TAP_IS_INT(fixture_int(db, p,
                           "SELECT COUNT(*) FROM allocations "
                           "WHERE consumer_id = '" C5 "'"),
               0, "its allocations are gone");
    TAP_IS_INT(consumers_named(p, C5), 0, "and so is the consumer");
    TAP_IS_INT(pl_store_allocation_delete_consumer(db, p, C5), APR_ENOENT,
               "deleting it again is APR_ENOENT");
    TAP_OK(consumers_named(p, C1) == 1 && consumers_named(p, C3) == 1,
           "other consumers are untouched");
    apr_pool_destroy(p);
}

int main(void)
{
    if ((db = fixture_start(&root)) == NULL) {
        return tap_done();
    }
    test_ensure();
    test_create_and_get();
    test_generation();
    test_delete();
    apr_pool_destroy(root);
    apr_terminate();
    return tap_done();
}
