/* Licensed under the Apache License, Version 2.0.
 *
 * test_store_inventory.c: the inventories of a provider (store_inventory.c)
 * on a real SQLite database in memory with the project's schema. Every
 * write bumps the provider generation in the row and in the caller's
 * copy; a write from a stale copy is PL_ECONFLICT and leaves the rows
 * and the copy as they were; adding a class twice is APR_EEXIST,
 * replacing or removing a missing one APR_ENOENT; a class allocations
 * use cannot be removed (PL_EINUSE, with its name); replacing the whole
 * set adds, updates and removes, and reports classes left above capacity;
 * capacity is int((total - reserved) * ratio). An unknown class is
 * refused where names are resolved (pl_store_rc_id, get by name).
 *
 * The store does not check total/reserved/min/max/step themselves: the
 * JSON schemas and api_inventory.c do (with pl_store_inventory_capacity,
 * tested here).
 */
#include <apr_general.h>
#include <apr_strings.h>
#include <apr_dbd.h>

#include "pl_store_inventory.h"
#include "pl_store_rc.h"
#include "store_fixture.h"
#include "tap.h"

static apr_pool_t *root;
static pl_db_t *db;

/* How many inventory rows prov has (of class rc_name, or all: NULL). */
static apr_int64_t inv_rows(apr_pool_t *p, const pl_provider_t *prov,
                            const char *rc_name)
{
    if (rc_name == NULL) {
        return fixture_int(db, p,
                           "SELECT COUNT(*) FROM inventories "
                           "WHERE resource_provider_id = %d",
                           (int)prov->id);
    }
    return fixture_int(db, p,
                       "SELECT COUNT(*) FROM inventories i "
                       "JOIN resource_classes rc "
                       "ON rc.id = i.resource_class_id "
                       "WHERE i.resource_provider_id = %d AND rc.name = '%s'",
                       (int)prov->id, rc_name);
}

/* A column of prov's inventory of class rc_name, from the row. */
static apr_int64_t inv_col(apr_pool_t *p, const pl_provider_t *prov,
                           const char *rc_name, const char *column)
{
    return fixture_int(db, p,
                       "SELECT i.%s FROM inventories i "
                       "JOIN resource_classes rc "
                       "ON rc.id = i.resource_class_id "
                       "WHERE i.resource_provider_id = %d AND rc.name = '%s'",
                       column, (int)prov->id, rc_name);
}

static apr_int64_t stored_gen(apr_pool_t *p, const pl_provider_t *prov)
{
    return fixture_prov_generation(db, p, prov->uuid);
}

/* One allocation of used of class rc_id on prov, written directly. */
static void give_allocation(apr_pool_t *p, const pl_provider_t *prov,
                            const char *rc_name, int used)
{
    apr_int64_t rc_id = 0;

    if (pl_store_rc_id(db, p, rc_name, &rc_id) != APR_SUCCESS) {
        fixture_fail(db, rc_name);
    }
    fixture_exec(db, apr_psprintf(p,
                                  "INSERT INTO allocations "
                                  "(resource_provider_id, consumer_id, "
                                  "resource_class_id, used) VALUES "
                                  "(%d, 'a0000000-0000-0000-0000-000000000001',"
                                  " %d, %d)",
                                  (int)prov->id, (int)rc_id, used));
}

static apr_array_header_t *inv_list(apr_pool_t *p, int n, ...)
{
    apr_array_header_t *a = apr_array_make(p, n + 1, sizeof(pl_inventory_t *));
    va_list ap;
    int i;

    va_start(ap, n);
    for (i = 0; i < n; i++) {
        APR_ARRAY_PUSH(a, pl_inventory_t *) = va_arg(ap, pl_inventory_t *);
    }
    va_end(ap);
    return a;
}

static void test_capacity(void)
{
    apr_pool_t *p;

    apr_pool_create(&p, root);
    tap_note("capacity: int((total - reserved) * allocation_ratio)");
    TAP_OK(pl_store_inventory_capacity(
               fixture_inv(db, p, "VCPU", 10, 2, 1, 10, 1, 1.5)) == 12.0,
           "(10 - 2) * 1.5 = 12");
    TAP_OK(pl_store_inventory_capacity(
               fixture_inv(db, p, "VCPU", 3, 0, 1, 3, 1, 0.5)) == 1.0,
           "3 * 0.5 = 1.5 truncates to 1");
    TAP_OK(pl_store_inventory_capacity(
               fixture_inv(db, p, "VCPU", 4, 4, 1, 4, 1, 1.0)) == 0.0,
           "reserved = total: 0");
    TAP_OK(pl_store_inventory_capacity(
               fixture_inv(db, p, "VCPU", 1, 4, 1, 4, 1, 0.5)) == -1.0,
           "reserved > total: negative (-1.5 truncates toward zero to -1), "
           "which the API refuses");
    apr_pool_destroy(p);
}

static void test_unknown_class(void)
{
    pl_provider_t *prov;
    pl_inventory_t *inv = NULL;
    apr_int64_t id = 0;
    apr_pool_t *p;

    apr_pool_create(&p, root);
    tap_note("unknown classes");
    prov = fixture_provider(db, p, "unknown-class", 10);
    fixture_add_inv(db, p, prov, "VCPU", 4, 0, 1, 4, 1, 1.0);
    TAP_IS_INT(pl_store_rc_id(db, p, "CUSTOM_NOT_THERE", &id), APR_ENOENT,
               "an unknown class name does not resolve (APR_ENOENT)");
    TAP_IS_INT(pl_store_rc_id(db, p, "vcpu", &id), APR_ENOENT,
               "names are case sensitive: vcpu is unknown");
    TAP_IS_INT(pl_store_rc_id(db, p, "MEMORY_MB", &id), APR_SUCCESS,
               "a standard class resolves");
    TAP_IS_INT(id, 1, "MEMORY_MB is id 1");
    TAP_IS_INT(
        pl_store_inventory_get(db, p, prov->id, "CUSTOM_NOT_THERE", &inv),
        APR_ENOENT, "get of an unknown class is APR_ENOENT");
    TAP_IS_INT(pl_store_inventory_get(db, p, prov->id, "MEMORY_MB", &inv),
               APR_ENOENT, "get of a class the provider lacks is APR_ENOENT");
    TAP_IS_INT(pl_store_inventory_get(db, p, prov->id, "VCPU", &inv),
               APR_SUCCESS, "get of a class it has");
    apr_pool_destroy(p);
}

static void test_add_get_list(void)
{
    pl_provider_t *prov, stale;
    apr_array_header_t *invs = NULL;
    pl_inventory_t *inv = NULL;
    apr_pool_t *p;

    apr_pool_create(&p, root);
    tap_note("add, get, list");
    prov = fixture_provider(db, p, "add", 20);
    TAP_IS_INT(prov->generation, 0, "a new provider is at generation 0");
    TAP_IS_INT(pl_store_inventory_list(db, p, prov->id, &invs), APR_SUCCESS,
               "list of a provider without inventory");
    TAP_IS_INT(invs ? invs->nelts : -1, 0, "is empty");

    stale = *prov;
    TAP_IS_INT(pl_store_inventory_add(db, p, prov,
                                      fixture_inv(db, p, "MEMORY_MB", 2048, 512,
                                                  256, 1024, 256, 1.5)),
               APR_SUCCESS, "add MEMORY_MB");
    TAP_IS_INT(prov->generation, 1, "the caller's copy is at generation 1");
    TAP_IS_INT(stored_gen(p, prov), 1, "the row is at generation 1");
    TAP_IS_INT(pl_store_inventory_get(db, p, prov->id, "MEMORY_MB", &inv),
               APR_SUCCESS, "get it");
    if (inv == NULL) {
        apr_pool_destroy(p);
        return;
    }
    TAP_IS_STR(inv->rc_name, "MEMORY_MB", "class name");
    TAP_IS_INT(inv->rc_id, 1, "class id");
    TAP_IS_INT(inv->total, 2048, "total");
    TAP_IS_INT(inv->reserved, 512, "reserved");
    TAP_IS_INT(inv->min_unit, 256, "min_unit");
    TAP_IS_INT(inv->max_unit, 1024, "max_unit");
    TAP_IS_INT(inv->step_size, 256, "step_size");
    TAP_OK(inv->allocation_ratio == 1.5, "allocation_ratio 1.5 (got %g)",
           inv->allocation_ratio);

    TAP_IS_INT(
        pl_store_inventory_add(
            db, p, prov, fixture_inv(db, p, "MEMORY_MB", 1, 0, 1, 1, 1, 1.0)),
        APR_EEXIST, "adding the class again is APR_EEXIST");
    TAP_IS_INT(inv_col(p, prov, "MEMORY_MB", "total"), 2048,
               "the first row is untouched");
    TAP_IS_INT(prov->generation, 1, "the copy's generation did not move");
    TAP_IS_INT(stored_gen(p, prov), 1, "nor the row's");

    TAP_IS_INT(
        pl_store_inventory_add(db, p, &stale,
                               fixture_inv(db, p, "VCPU", 8, 0, 1, 8, 1, 16.0)),
        PL_ECONFLICT, "add from a stale copy (generation 0) conflicts");
    TAP_IS_INT(inv_rows(p, prov, "VCPU"), 0, "and adds no row");
    TAP_IS_INT(stale.generation, 0, "the stale copy keeps its generation");
    TAP_IS_INT(stored_gen(p, prov), 1, "the row keeps its generation");

    TAP_IS_INT(
        pl_store_inventory_add(db, p, prov,
                               fixture_inv(db, p, "VCPU", 8, 0, 1, 8, 1, 16.0)),
        APR_SUCCESS, "add VCPU from the current copy");
    TAP_IS_INT(stored_gen(p, prov), 2, "generation 2");
    TAP_IS_INT(pl_store_inventory_list(db, p, prov->id, &invs), APR_SUCCESS,
               "list");
    if (!TAP_IS_INT(invs->nelts, 2, "two inventories")) {
        apr_pool_destroy(p);
        return;
    }
    TAP_IS_STR(APR_ARRAY_IDX(invs, 0, pl_inventory_t *)->rc_name, "VCPU",
               "by class id: VCPU (0) first");
    TAP_IS_STR(APR_ARRAY_IDX(invs, 1, pl_inventory_t *)->rc_name, "MEMORY_MB",
               "then MEMORY_MB (1)");
    TAP_OK(APR_ARRAY_IDX(invs, 0, pl_inventory_t *)->allocation_ratio == 16.0,
           "VCPU's ratio reads back as 16");
    apr_pool_destroy(p);
}

static void test_update(void)
{
    pl_provider_t *prov, stale;
    int exceeded = -1;
    apr_pool_t *p;

    apr_pool_create(&p, root);
    tap_note("update");
    prov = fixture_provider(db, p, "update", 30);
    fixture_add_inv(db, p, prov, "VCPU", 8, 0, 1, 8, 1, 1.0);
    stale = *prov;
    TAP_IS_INT(pl_store_inventory_update(
                   db, p, prov, fixture_inv(db, p, "VCPU", 16, 2, 2, 8, 2, 2.0),
                   &exceeded),
               APR_SUCCESS, "replace VCPU");
    TAP_IS_INT(exceeded, 0, "no usage, nothing exceeded");
    TAP_IS_INT(inv_col(p, prov, "VCPU", "total"), 16, "total stored");
    TAP_IS_INT(inv_col(p, prov, "VCPU", "reserved"), 2, "reserved stored");
    TAP_IS_INT(inv_col(p, prov, "VCPU", "min_unit"), 2, "min_unit stored");
    TAP_IS_INT(inv_col(p, prov, "VCPU", "step_size"), 2, "step_size stored");
    TAP_IS_INT(prov->generation, 2, "the copy's generation is bumped");
    TAP_IS_INT(stored_gen(p, prov), 2, "the row's too");

    TAP_IS_INT(pl_store_inventory_update(
                   db, p, &stale,
                   fixture_inv(db, p, "VCPU", 4, 0, 1, 4, 1, 1.0), NULL),
               PL_ECONFLICT, "replace from a stale copy conflicts");
    TAP_IS_INT(inv_col(p, prov, "VCPU", "total"), 16,
               "and the row keeps its total");
    TAP_IS_INT(stale.generation, 1, "the stale copy keeps its generation");

    exceeded = -1;
    TAP_IS_INT(pl_store_inventory_update(
                   db, p, prov,
                   fixture_inv(db, p, "DISK_GB", 10, 0, 1, 10, 1, 1.0),
                   &exceeded),
               APR_ENOENT, "replace a class the provider lacks: APR_ENOENT");
    TAP_IS_INT(inv_rows(p, prov, "DISK_GB"), 0, "no row made");
    TAP_IS_INT(stored_gen(p, prov), 2, "generation unchanged");
    TAP_IS_INT(exceeded, 0, "a failed update reports nothing exceeded");

    /* usage above the new capacity is allowed, and said */
    give_allocation(p, prov, "VCPU", 10);
    exceeded = -1;
    TAP_IS_INT(pl_store_inventory_update(
                   db, p, prov,
                   fixture_inv(db, p, "VCPU", 12, 2, 1, 12, 1, 1.0), &exceeded),
               APR_SUCCESS, "shrink to capacity 10 with 10 used");
    TAP_IS_INT(exceeded, 0, "usage equal to capacity is not exceeded");
    exceeded = -1;
    TAP_IS_INT(pl_store_inventory_update(
                   db, p, prov,
                   fixture_inv(db, p, "VCPU", 12, 3, 1, 12, 1, 1.0), &exceeded),
               APR_SUCCESS, "shrink to capacity 9 with 10 used is allowed");
    TAP_IS_INT(exceeded, 1, "and reported as exceeded");
    TAP_IS_INT(inv_col(p, prov, "VCPU", "reserved"), 3, "reserved 3 stored");
    apr_pool_destroy(p);
}

static void test_delete(void)
{
    pl_provider_t *prov, stale;
    const char *inuse = NULL;
    apr_int64_t vcpu = 0, disk = 0, mem = 0;
    apr_pool_t *p;

    apr_pool_create(&p, root);
    tap_note("delete");
    pl_store_rc_id(db, p, "VCPU", &vcpu);
    pl_store_rc_id(db, p, "MEMORY_MB", &mem);
    pl_store_rc_id(db, p, "DISK_GB", &disk);
    prov = fixture_provider(db, p, "delete", 40);
    fixture_add_inv(db, p, prov, "VCPU", 8, 0, 1, 8, 1, 1.0);
    fixture_add_inv(db, p, prov, "DISK_GB", 100, 0, 1, 100, 1, 1.0);
    give_allocation(p, prov, "VCPU", 2);
    TAP_IS_INT(stored_gen(p, prov), 2, "two inventories: generation 2");

    TAP_IS_INT(pl_store_inventory_delete(db, p, prov, vcpu, &inuse), PL_EINUSE,
               "delete an inventory in use: PL_EINUSE");
    TAP_IS_STR(inuse, "VCPU", "naming the class in use");
    TAP_IS_INT(inv_rows(p, prov, "VCPU"), 1, "the inventory stays");
    TAP_IS_INT(stored_gen(p, prov), 2, "the generation stays");
    TAP_IS_INT(prov->generation, 2, "in the copy too");

    TAP_IS_INT(pl_store_inventory_delete(db, p, prov, mem, &inuse), APR_ENOENT,
               "delete a class the provider lacks: APR_ENOENT");
    TAP_IS_INT(stored_gen(p, prov), 2, "the generation stays");

    stale = *prov;
    stale.generation = 1;
    TAP_IS_INT(pl_store_inventory_delete(db, p, &stale, disk, &inuse),
               PL_ECONFLICT, "delete from a stale copy conflicts");
    TAP_IS_INT(inv_rows(p, prov, "DISK_GB"), 1, "and the row stays");

    TAP_IS_INT(pl_store_inventory_delete(db, p, prov, disk, &inuse),
               APR_SUCCESS, "delete an unused inventory");
    TAP_IS_INT(inv_rows(p, prov, "DISK_GB"), 0, "its row is gone");
    TAP_IS_INT(inv_rows(p, prov, NULL), 1, "the other one stays");
    TAP_IS_INT(stored_gen(p, prov), 3, "generation 3");
    TAP_IS_INT(prov->generation, 3, "in the copy too");
    apr_pool_destroy(p);
}

static void test_set(void)
{
    apr_array_header_t *over = NULL, *invs;
    pl_provider_t *prov, stale;
    const char *inuse = NULL;
    apr_pool_t *p;

    apr_pool_create(&p, root);
    tap_note("set: the whole inventory at once");
    prov = fixture_provider(db, p, "set", 50);
    fixture_add_inv(db, p, prov, "VCPU", 8, 0, 1, 8, 1, 1.0);
    fixture_add_inv(db, p, prov, "MEMORY_MB", 1024, 0, 1, 1024, 1, 1.0);
    stale = *prov;

    /* VCPU replaced, MEMORY_MB removed, DISK_GB added */
    invs = inv_list(p, 2, fixture_inv(db, p, "VCPU", 32, 0, 1, 32, 1, 4.0),
                    fixture_inv(db, p, "DISK_GB", 500, 10, 1, 500, 1, 1.0));
    TAP_IS_INT(pl_store_inventory_set(db, p, prov, invs, &inuse, &over),
               APR_SUCCESS, "set {VCPU, DISK_GB} over {VCPU, MEMORY_MB}");
    TAP_IS_INT(inv_col(p, prov, "VCPU", "total"), 32, "VCPU is replaced");
    TAP_IS_INT(inv_rows(p, prov, "MEMORY_MB"), 0, "MEMORY_MB is removed");
    TAP_IS_INT(inv_col(p, prov, "DISK_GB", "reserved"), 10, "DISK_GB is added");
    TAP_IS_INT(inv_rows(p, prov, NULL), 2, "two rows in all");
    TAP_IS_INT(stored_gen(p, prov), 3, "one bump for the whole set");
    TAP_IS_INT(prov->generation, 3, "in the copy too");
    TAP_IS_INT(over ? over->nelts : -1, 0, "nothing exceeded");

    TAP_IS_INT(pl_store_inventory_set(db, p, prov, invs, &inuse, NULL),
               APR_SUCCESS, "the same set again");
    TAP_IS_INT(stored_gen(p, prov), 4, "bumps the generation even so");

    /* a stale set rolls back all of its statements */
    stale.generation = 3;
    TAP_IS_INT(
        pl_store_inventory_set(
            db, p, &stale,
            inv_list(p, 2, fixture_inv(db, p, "VCPU", 1, 0, 1, 1, 1, 1.0),
                     fixture_inv(db, p, "MEMORY_MB", 64, 0, 1, 64, 1, 1.0)),
            &inuse, NULL),
        PL_ECONFLICT,
        "a set from a stale copy (update, add, remove) conflicts");
    TAP_IS_INT(inv_col(p, prov, "VCPU", "total"), 32, "VCPU is not replaced");
    TAP_IS_INT(inv_rows(p, prov, "MEMORY_MB"), 0, "MEMORY_MB is not added");
    TAP_IS_INT(inv_rows(p, prov, "DISK_GB"), 1, "DISK_GB is not removed");
    TAP_IS_INT(stale.generation, 3, "the stale copy keeps its generation");
    TAP_IS_INT(stored_gen(p, prov), 4, "the row keeps its generation");

    /* removing classes in use */
    give_allocation(p, prov, "VCPU", 32);
    give_allocation(p, prov, "DISK_GB", 5);
    inuse = NULL;
    TAP_IS_INT(
        pl_store_inventory_set(
            db, p, prov,
            inv_list(p, 1,
                     fixture_inv(db, p, "MEMORY_MB", 64, 0, 1, 64, 1, 1.0)),
            &inuse, NULL),
        PL_EINUSE, "a set removing two classes in use: PL_EINUSE");
    TAP_IS_STR(inuse, "VCPU, DISK_GB", "naming both, by class id");
    TAP_IS_INT(inv_rows(p, prov, NULL), 2, "both stay");
    TAP_IS_INT(inv_rows(p, prov, "MEMORY_MB"), 0, "nothing is added");
    TAP_IS_INT(stored_gen(p, prov), 4, "the generation stays");

    /* shrinking below usage is allowed and reported */
    over = NULL;
    TAP_IS_INT(
        pl_store_inventory_set(
            db, p, prov,
            inv_list(p, 2, fixture_inv(db, p, "VCPU", 8, 0, 1, 8, 1, 4.0),
                     fixture_inv(db, p, "DISK_GB", 4, 0, 1, 4, 1, 1.0)),
            &inuse, &over),
        APR_SUCCESS, "a set leaving VCPU at capacity, DISK_GB below");
    TAP_IS_INT(over ? over->nelts : -1, 1, "one class exceeded");
    TAP_IS_STR(over && over->nelts ? APR_ARRAY_IDX(over, 0, const char *)
                                   : NULL,
               "DISK_GB", "DISK_GB");

    /* the empty set removes everything, when nothing is in use */
    fixture_exec(db, apr_psprintf(p,
                                  "DELETE FROM allocations "
                                  "WHERE resource_provider_id = %d",
                                  (int)prov->id));
    TAP_IS_INT(
        pl_store_inventory_set(db, p, prov, inv_list(p, 0), &inuse, NULL),
        APR_SUCCESS, "the empty set");
    TAP_IS_INT(inv_rows(p, prov, NULL), 0, "removes every inventory");
    TAP_IS_INT(stored_gen(p, prov), 6, "and bumps the generation");
    apr_pool_destroy(p);
}

int main(void)
{
    if ((db = fixture_start(&root)) == NULL) {
        return tap_done();
    }
    test_capacity();
    test_unknown_class();
    test_add_get_list();
    test_update();
    test_delete();
    test_set();
    apr_pool_destroy(root);
    apr_terminate();
    return tap_done();
}
