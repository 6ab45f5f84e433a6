/* Licensed under the Apache License, Version 2.0.
 *
 * test_ac_store.c: the candidates' database side (store_ac*.c) on a real
 * SQLite database in memory with the project's schema: the world read
 * through the provider cache is the world read without it; a cached
 * provider's facts are used only at the generation they were read at;
 * what changes without a generation (usages, aggregates, class names,
 * deletions) is read fresh every time; a bound walks the first trees by
 * root id and the rest come after the last one read;
 * pl_store_ac_candidates reads more trees while too few candidates came,
 * and logs its counters (at warning when the node budget cut).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_strings.h>
#include <apr_dbd.h>

#include "pl_mv.h"
#include "pl_store_ac.h"
#include "ac_world.h"
#include "memory_db.h"
#include "tap.h"

static apr_pool_t *pool;

static void exec(pl_db_t *db, const char *sql)
{
    if (pl_db_exec_text(db, NULL, sql) != APR_SUCCESS) {
        fprintf(stderr, "# failed: %s: %s\n", sql, pl_db_errstr(db));
        abort();
    }
}

/* the schema, statement by statement (apr_dbd_sqlite3 runs one a call),
 * its comments dropped first (they hold semicolons too) */
/*
 * Four trees: 1 and 2 flat, 3 with a child 4, 5 flat.
 *   1: VCPU 8 (2 used), MEMORY_MB 1024, trait T1, in aggregate A
 *   2: VCPU 8, in A
 *   3: VCPU 4, in A; 4 (child of 3): CUSTOM_X 2, trait T1
 *   5: VCPU 8, trait T1
 */
static pl_db_t *open_db(void)
{
    pl_db_t *db = memory_db(pool); /* a pool of its own per connection */

    if (db == NULL) {
        return NULL;
    }
    if (memory_db_load(db, pool, "sql/sqlite/schema.sql") != APR_SUCCESS) {
        fprintf(stderr, "# cannot load sql/sqlite/schema.sql: %s\n",
                pl_db_errstr(db));
        abort();
    }
    exec(db, "INSERT INTO resource_classes (id, name) VALUES (0, 'VCPU'), "
             "(1, 'MEMORY_MB'), (10000, 'CUSTOM_X')");
    exec(db, "INSERT INTO traits (id, name) VALUES (1, 'T1'), (2, 'T2'), "
             "(3, 'MISC_SHARES_VIA_AGGREGATE')");
    exec(db, "INSERT INTO placement_aggregates (id, uuid) VALUES "
             "(1, 'aaaaaaaa-0000-0000-0000-000000000001')");
    exec(db, "INSERT INTO resource_providers (id, uuid, name, generation, "
             "root_provider_id, parent_provider_id) VALUES "
             "(1, '00000000-0000-0000-0000-000000000001', 'r1', 1, 1, NULL), "
             "(2, '00000000-0000-0000-0000-000000000002', 'r2', 1, 2, NULL), "
             "(3, '00000000-0000-0000-0000-000000000003', 'r3', 1, 3, NULL), "
             "(4, '00000000-0000-0000-0000-000000000004', 'c4', 1, 3, 3), "
             "(5, '00000000-0000-0000-0000-000000000005', 'r5', 1, 5, NULL)");
    exec(db, "INSERT INTO inventories (resource_provider_id, "
             "resource_class_id, total, reserved, min_unit, max_unit, "
             "step_size, allocation_ratio) VALUES "
             "(1, 0, 8, 0, 1, 8, 1, 1.0), (1, 1, 1024, 0, 1, 1024, 1, 1.5), "
             "(2, 0, 8, 0, 1, 8, 1, 1.0), (3, 0, 4, 0, 1, 4, 1, 1.0), "
             "(4, 10000, 2, 0, 1, 2, 1, 1.0), (5, 0, 8, 0, 1, 8, 1, 1.0)");
    exec(db, "INSERT INTO resource_provider_traits (resource_provider_id, "
             "trait_id) VALUES (1, 1), (4, 1), (5, 1)");
    exec(db, "INSERT INTO resource_provider_aggregates (resource_provider_id, "
             "aggregate_id) VALUES (1, 1), (2, 1), (3, 1)");
    exec(db, "INSERT INTO allocations (resource_provider_id, consumer_id, "
             "resource_class_id, used) VALUES (1, 'c', 0, 2)");
    return db;
}

static const char *name_of(const apr_array_header_t *names, apr_int64_t id)
{
    int i;

    for (i = 0; i < names->nelts; i++) {
        if (APR_ARRAY_IDX(names, i, pl_ac_name_t).id == id) {
            return APR_ARRAY_IDX(names, i, pl_ac_name_t).name;
        }
    }
    return "?";
}

static const char *links_text(const apr_array_header_t *links)
{
    const char *s = "";
    int i;

    for (i = 0; i < links->nelts; i++) {
        const pl_ac_link_t *l = &APR_ARRAY_IDX(links, i, pl_ac_link_t);

        s = apr_psprintf(pool, "%s %d/%d:%d", s, (int)l->rp_id, (int)l->root_id,
                         (int)l->other_id);
    }
    return s;
}

/* Everything the engine and the summaries read of a world, as text. */
static const char *world_text(const pl_ac_world_t *w)
{
    const char *s = "provs";
    int i;

    for (i = 0; i < w->provs->nelts; i++) {
        const pl_ac_prov_t *pv = &APR_ARRAY_IDX(w->provs, i, pl_ac_prov_t);

        s = apr_psprintf(pool, "%s %d(%d,%d,%.1s..%s)", s, (int)pv->id,
                         (int)pv->parent_id, (int)pv->root_id, pv->uuid,
                         pv->uuid + 35);
    }
    s = apr_pstrcat(pool, s, "; invs", NULL);
    for (i = 0; i < w->invs->nelts; i++) {
        const pl_ac_inv_t *v = &APR_ARRAY_IDX(w->invs, i, pl_ac_inv_t);

        s = apr_psprintf(pool, "%s %d/%d:%s=%d-%d,%d..%d/%d*%g,used %d", s,
                         (int)v->rp_id, (int)v->root_id,
                         name_of(w->rc_names, v->rc_id), (int)v->total,
                         (int)v->reserved, (int)v->min_unit, (int)v->max_unit,
                         (int)v->step_size, v->allocation_ratio, (int)v->used);
    }
    s = apr_pstrcat(pool, s, "; traits", links_text(w->all_traits),
                    "; requested traits", links_text(w->rp_traits), "; aggs",
                    links_text(w->rp_aggs), "; parents", links_text(w->parents),
                    NULL);
    for (i = 0; i < w->all_traits->nelts; i++) {
        apr_int64_t id = APR_ARRAY_IDX(w->all_traits, i, pl_ac_link_t).other_id;

        s = apr_psprintf(pool, "%s %s", s, name_of(w->trait_names, id));
    }
    return s;
}

static pl_ac_world_t *world(pl_db_t *db, pl_store_ac_cache_t *cache,
                            const char *query, int max_trees)
{
    pl_ac_world_t *w = NULL;

    if (pl_store_ac_world(db, pool, request(pool, PL_MV(1, 39), query), cache,
                          max_trees, &w) != APR_SUCCESS) {
        fprintf(stderr, "# pl_store_ac_world failed: %s\n", pl_db_errstr(db));
        abort();
    }
    return w;
}

static int roots_of(const pl_ac_world_t *w, char *buf, size_t size)
{
    int i, n = 0;

    buf[0] = '\0';
    for (i = 0; i < w->provs->nelts; i++) {
        const pl_ac_prov_t *pv = &APR_ARRAY_IDX(w->provs, i, pl_ac_prov_t);

        if (pv->parent_id == 0) {
            snprintf(buf + strlen(buf), size - strlen(buf), "%s%d",
                     n++ ? "," : "", (int)pv->id);
        }
    }
    return n;
}

#define Q_GATE                                                        \
    "resources=VCPU:1&required=T1&member_of=aaaaaaaa-0000-0000-0000-" \
    "000000000001"

static void test_cache_is_transparent(pl_db_t *db)
{
    pl_store_ac_cache_t *cache = pl_store_ac_cache_make(pool, 100);
    const char *plain = world_text(world(db, NULL, Q_GATE, 0));
    int kept, resets;
    char roots[64];

    TAP_IS_STR(plain,
               "provs 1(0,1,0..1) 3(0,3,0..3) 4(3,3,0..4); invs "
               "1/1:VCPU=8-0,1..8/1*1,used 2 "
               "1/1:MEMORY_MB=1024-0,1..1024/1*1.5,used 0 "
               "3/3:VCPU=4-0,1..4/1*1,used 0 "
               "4/3:CUSTOM_X=2-0,1..2/1*1,used 0; traits 1/1:1 4/3:1; "
               "requested traits 1/1:1 4/3:1; aggs 1/1:1 3/3:1; parents "
               "4/3:3 T1 T1",
               "the trees with T1 in aggregate A, whole");
    TAP_IS_STR(world_text(world(db, cache, Q_GATE, 0)), plain,
               "through an empty cache: the same world");
    pl_store_ac_cache_stats(cache, &kept, &resets);
    TAP_IS_INT(kept, 3, "the cache keeps the three providers read");
    TAP_IS_STR(world_text(world(db, cache, Q_GATE, 0)), plain,
               "from the cache: the same world");
    roots_of(world(db, cache, "resources=VCPU:1", 0), roots, sizeof(roots));
    TAP_IS_STR(roots, "1,2,3,5", "without filters: every tree with VCPU");
}

static void test_generation_rules(pl_db_t *db)
{
    pl_store_ac_cache_t *cache = pl_store_ac_cache_make(pool, 100);
    const char *cached;

    world(db, cache, Q_GATE, 0);
    /* a change that does not move the generation is not seen through
     * the cache: placement never writes inventories that way, and this
     * shows the cache is what answers */
    exec(db, "UPDATE inventories SET total = 16 WHERE resource_provider_id "
             "= 1 AND resource_class_id = 0");
    cached = world_text(world(db, cache, Q_GATE, 0));
    TAP_OK(strstr(cached, "1/1:VCPU=8-") != NULL,
           "the same generation: the kept inventory");
    TAP_OK(strstr(world_text(world(db, NULL, Q_GATE, 0)), "1/1:VCPU=16-") !=
               NULL,
           "without the cache: the database's");
    exec(db, "UPDATE resource_providers SET generation = 2 WHERE id = 1");
    TAP_OK(strstr(world_text(world(db, cache, Q_GATE, 0)), "1/1:VCPU=16-") !=
               NULL,
           "a new generation: read again");

    /* traits likewise */
    exec(db, "INSERT INTO resource_provider_traits (resource_provider_id, "
             "trait_id) VALUES (1, 2)");
    exec(db, "UPDATE resource_providers SET generation = 3 WHERE id = 1");
    TAP_OK(strstr(world_text(world(db, cache, Q_GATE, 0)),
                  "traits 1/1:1 "
                  "1/1:2 4/3:1") != NULL,
           "a trait added with a new generation is there");

    /* usages, aggregates, class names and deletions move no generation:
     * read fresh through the cache */
    exec(db, "INSERT INTO allocations (resource_provider_id, consumer_id, "
             "resource_class_id, used) VALUES (1, 'd', 0, 3)");
    TAP_OK(strstr(world_text(world(db, cache, Q_GATE, 0)),
                  "VCPU=16-0,1..8/"
                  "1*1,used 5") != NULL,
           "a new allocation is counted");
    exec(db, "UPDATE resource_classes SET name = 'CUSTOM_Y' WHERE id = 10000");
    TAP_OK(strstr(world_text(world(db, cache, Q_GATE, 0)), "4/3:CUSTOM_Y=") !=
               NULL,
           "a renamed custom class has its new name");
    exec(db, "DELETE FROM resource_provider_aggregates WHERE "
             "resource_provider_id = 3");
    TAP_OK(strstr(world_text(world(db, cache, Q_GATE, 0)), "3(0,3,") == NULL,
           "a tree that left the aggregate is not read");
    exec(db, "INSERT INTO resource_provider_aggregates (resource_provider_id, "
             "aggregate_id) VALUES (3, 1)");
    exec(db, "DELETE FROM resource_provider_traits WHERE resource_provider_id "
             "= 4");
    exec(db, "DELETE FROM inventories WHERE resource_provider_id = 4");
    exec(db, "DELETE FROM resource_providers WHERE id = 4");
    TAP_OK(strstr(world_text(world(db, cache, "resources=VCPU:1", 0)),
                  "4(3,3") == NULL,
           "a deleted provider is gone");
}

/* with a bound: which trees come first and which after (in a cloud that
 * looks small to the bound: one set-based query; large: a walk) */
static void test_bound(pl_db_t *db)
{
    pl_store_ac_cache_t *cache = pl_store_ac_cache_make(pool, 100);
    const pl_ac_request_t *req = request(pool, PL_MV(1, 39),
                                         "resources=VCPU:1");
    pl_ac_world_t *w = world(db, cache, "resources=VCPU:1", 2);
    char roots[64];

    TAP_IS_INT(roots_of(w, roots, sizeof(roots)), 2, "two trees at most");
    TAP_IS_STR(roots, "1,2", "the first two by root id");
    TAP_OK(w->truncated, "more may be left");
    TAP_IS_INT(pl_store_ac_more(db, pool, req, cache, 2, w), APR_SUCCESS,
               "the next two");
    roots_of(w, roots, sizeof(roots));
    TAP_IS_STR(roots, "1,2,3,5", "after the last one read");
    TAP_OK(w->truncated, "a full batch: more may be left");
    TAP_IS_INT(pl_store_ac_more(db, pool, req, cache, 2, w), APR_SUCCESS,
               "and again");
    roots_of(w, roots, sizeof(roots));
    TAP_IS_STR(roots, "1,2,3,5", "nothing more");
    TAP_OK(!w->truncated, "the end");
    TAP_IS_STR(world_text(w),
               world_text(world(db, NULL, "resources=VCPU:1", 0)),
               "read in parts: the world read at once");
    roots_of(world(db, cache, Q_GATE, 1), roots, sizeof(roots));
    TAP_IS_STR(roots, "1", "a bound with filters: the first tree that passes");
    roots_of(world(db, cache,
                   "resources=VCPU:1&member_of=aaaaaaaa-0000-0000-0000-"
                   "00000000000f",
                   5),
             roots, sizeof(roots));
    TAP_IS_STR(roots, "", "an aggregate that does not exist: no tree read");
    /* no filter: the trees large enough for the smallest amount asked of
     * each class (3 has 4 VCPU; 1 has 8, 2 used: its usage is left to
     * the engine) */
    roots_of(world(db, cache, "resources=VCPU:7", 5), roots, sizeof(roots));
    TAP_IS_STR(roots, "1,2,5", "large enough for 7 VCPU: trees 1, 2 and 5");
    roots_of(world(db, cache, "resources=VCPU:6&resources1=VCPU:9", 5), roots,
             sizeof(roots));
    TAP_IS_STR(roots, "1,2,5", "the smallest amount of a class counts");
    roots_of(world(db, cache, "resources=VCPU:1,MEMORY_MB:1024", 5), roots,
             sizeof(roots));
    TAP_IS_STR(roots, "1", "every class, with room for its amount");
    roots_of(world(db, cache, "resources=VCPU:1,MEMORY_MB:1025", 5), roots,
             sizeof(roots));
    TAP_IS_STR(roots, "", "more than max_unit: no room");
    roots_of(world(db, cache, "resources=VCPU:9", 5), roots, sizeof(roots));
    TAP_IS_STR(roots, "", "room for 9 VCPU nowhere");
    roots_of(world(db, cache, "resources=VCPU:9007199254740993", 5), roots,
             sizeof(roots));
    TAP_IS_STR(roots, "1,2,3,5",
               "an amount beyond 2^52: left to the engine, every tree with "
               "VCPU read");
}

/* A database emptied and filled again (a test harness, a restore) may
 * give old ids and generations to other providers: the uuid tells. */
static void test_refilled(pl_db_t *db)
{
    pl_store_ac_cache_t *cache = pl_store_ac_cache_make(pool, 100);

    world(db, cache, "resources=VCPU:1", 0);
    exec(db, "UPDATE resource_providers SET uuid = "
             "'10000000-0000-0000-0000-000000000002' WHERE id = 2");
    exec(db, "UPDATE inventories SET total = 3 WHERE resource_provider_id = 2");
    TAP_OK(strstr(world_text(world(db, cache, "resources=VCPU:1", 0)),
                  "2/2:VCPU=3-") != NULL,
           "another provider under an old id and generation: read again");
}

static void test_small_cache(pl_db_t *db)
{
    pl_store_ac_cache_t *cache = pl_store_ac_cache_make(pool, 2);
    const char *plain = world_text(world(db, NULL, "resources=VCPU:1", 0));
    int kept, resets;

    TAP_IS_STR(world_text(world(db, cache, "resources=VCPU:1", 0)), plain,
               "more providers than the cache holds: the same world");
    TAP_IS_STR(world_text(world(db, cache, "resources=VCPU:1", 0)), plain,
               "and again");
    pl_store_ac_cache_stats(cache, &kept, &resets);
    TAP_OK(kept <= 2, "the cache holds at most its size (%d)", kept);
    TAP_OK(resets >= 1, "it started again when full (%d)", resets);
}

/* The lookups last read for the same names ride with the trees
 * statement (one round trip); the trees count only when the lookups
 * that came are the ones guessed: a change to what they say (a trait
 * now known, a provider now sharing, a larger cloud) gives the world
 * read without any guess. */
static void test_lookups_guessed(pl_db_t *db)
{
    pl_store_ac_cache_t *cache = pl_store_ac_cache_make(pool, 100);
    const char *q = "resources=VCPU:1&required=T9";
    pl_ac_world_t *w;

    w = world(db, cache, Q_GATE, 0);
    TAP_OK(!w->one_trip, "first time: the lookups on their own");
    w = world(db, cache, Q_GATE, 0);
    TAP_OK(w->one_trip, "the same names again: one round trip");
    TAP_IS_STR(world_text(w), world_text(world(db, NULL, Q_GATE, 0)),
               "one round trip: the world read in two");

    TAP_IS_INT(world(db, cache, q, 0)->traits->nelts, 0,
               "a trait that does not exist: not known");
    exec(db, "INSERT INTO traits (id, name) VALUES (9, 'T9')");
    exec(db, "INSERT INTO resource_provider_traits (resource_provider_id, "
             "trait_id) VALUES (2, 9)");
    exec(db, "UPDATE resource_providers SET generation = generation + 1 "
             "WHERE id = 2");
    w = world(db, cache, q, 0);
    TAP_OK(!w->one_trip && w->traits->nelts == 1,
           "the trait now exists: known, the guess not used");
    TAP_IS_STR(world_text(w), world_text(world(db, NULL, q, 0)),
               "and the world is the database's (tree 2 alone)");
    TAP_OK(world(db, cache, q, 0)->one_trip, "then guessed again");

    world(db, cache, "resources=VCPU:1", 0);
    exec(db, "INSERT INTO resource_provider_traits (resource_provider_id, "
             "trait_id) VALUES (2, 3)");
    exec(db, "UPDATE resource_providers SET generation = generation + 1 "
             "WHERE id = 2");
    w = world(db, cache, "resources=VCPU:1", 0);
    TAP_OK(!w->one_trip && w->sharing->nelts == 1,
           "a provider now sharing: read without the guess (%d sharing)",
           w->sharing->nelts);
    TAP_IS_STR(world_text(w),
               world_text(world(db, NULL, "resources=VCPU:1", 0)),
               "with the trees it serves");
    TAP_OK(!world(db, cache, "resources=VCPU:1", 0)->one_trip,
           "with sharing providers, never guessed");
    exec(db, "DELETE FROM resource_provider_traits WHERE resource_provider_id "
             "= 2 AND trait_id IN (3, 9)");
}

/* the last line logged through a pl_log_t, and its level */
static char logged[4096];
static int logged_level;

static void capture(void *baton, const char *file, int line, int level,
                    apr_status_t rv, const char *msg)
{
    apr_cpystrn(logged, msg, sizeof(logged));
    logged_level = level;
}

/* Tree id: one provider with one DISK_GB, used or free. */
static void add_disk_tree(pl_db_t *db, int id, int used)
{
    exec(db, apr_psprintf(pool,
                          "INSERT INTO resource_providers (id, uuid, name, "
                          "generation, root_provider_id) VALUES "
                          "(%d, '00000000-0000-0000-0000-%012d', 'd%d', 1, "
                          "%d)",
                          id, id, id, id));
    exec(db, apr_psprintf(pool,
                          "INSERT INTO inventories (resource_provider_id, "
                          "resource_class_id, total, reserved, min_unit, "
                          "max_unit, step_size, allocation_ratio) VALUES "
                          "(%d, 2, 1, 0, 1, 1, 1, 1.0)",
                          id));
    if (used) {
        exec(db, apr_psprintf(pool,
                              "INSERT INTO allocations (resource_provider_id, "
                              "consumer_id, resource_class_id, used) VALUES "
                              "(%d, 'c', 2, 1)",
                              id));
    }
}

/* pl_store_ac_candidates on trees 10..49, DISK_GB 1 each, all used but
 * 49's: with limit=1 the first 17 trees give nothing, so four times as
 * many more are read after them and the build runs again. */
static void test_candidates(void)
{
    pl_db_t *db = open_db();
    pl_store_ac_cache_t *cache = pl_store_ac_cache_make(pool, 100);
    const pl_ac_request_t *req;
    pl_ac_result_t *res;
    pl_ac_world_t *w;
    pl_ac_opts_t opts;
    pl_ac_stats_t st;
    pl_log_t log = { capture, NULL, PL_LOG_INFO };
    char roots[64];
    int i;

    exec(db, "INSERT INTO resource_classes (id, name) VALUES (2, 'DISK_GB')");
    for (i = 10; i < 50; i++) {
        add_disk_tree(db, i, i < 49);
    }
    req = request(pool, PL_MV(1, 39), "resources=DISK_GB:1&limit=1");
    memset(&opts, 0, sizeof(opts));
    opts.limit = req->limit;
    opts.max_candidates = -1;
    opts.stats = &st;
    opts.log = &log;
    logged[0] = '\0';
    TAP_IS_INT(pl_store_ac_candidates(db, pool, req, &opts, cache, &w, &res),
               APR_SUCCESS, "candidates: read and built");
    TAP_IS_INT(res->cands->nelts, 1, "candidates: the one free tree");
    TAP_IS_INT(roots_of(w, roots, sizeof(roots)), 40,
               "candidates: 17 trees, then the other 23");
    TAP_IS_INT(w->roots_read, 40, "candidates: 40 trees counted");
    TAP_IS_INT(w->reads, 2, "candidates: in two reads");
    TAP_OK(!w->truncated, "candidates: no tree left unread");
    TAP_IS_INT(APR_ARRAY_IDX(res->roots, 0, apr_int64_t), 49,
               "candidates: from tree 49");
    TAP_IS_INT(st.nodes, 1, "candidates: one node walked in both builds");
    TAP_IS_STR(logged, "", "candidates: nothing logged below debug");

    log.level = PL_LOG_DEBUG;
    pl_store_ac_candidates(db, pool, req, &opts, cache, &w, &res);
    TAP_IS_INT(logged_level, PL_LOG_DEBUG, "candidates: a line at debug");
    TAP_IS_STR(logged,
               "PL05100: allocation candidates: 1, bound 1, stopped at the "
               "bound; trees 40 in 2 reads; providers 40; nodes 1, pruned 0, "
               "refused 0; facts 40 cached, 0 read",
               "candidates: the counters");

    opts.randomize = 1;
    pl_store_ac_candidates(db, pool, req, &opts, cache, &w, &res);
    TAP_IS_INT(roots_of(w, roots, sizeof(roots)), 40,
               "candidates: a random sample reads every tree at once");
    TAP_IS_INT(w->reads, 1, "candidates: in one read");
    TAP_IS_INT(res->cands->nelts, 1, "candidates: and finds the one");

    /* a budget of two nodes: the four VCPU trees give two candidates,
     * and a warning says why */
    req = request(pool, PL_MV(1, 39), "resources=VCPU:1");
    memset(&opts, 0, sizeof(opts));
    opts.max_candidates = -1;
    opts.budget = 2;
    opts.log = &log;
    log.level = PL_LOG_WARNING;
    pl_store_ac_candidates(db, pool, req, &opts, cache, &w, &res);
    TAP_OK(res->over_budget && res->truncated,
           "candidates: cut by the node budget");
    TAP_IS_INT(res->cands->nelts, 2, "candidates: two of four");
    TAP_IS_INT(logged_level, PL_LOG_WARNING, "candidates: a warning");
    TAP_IS_STR(logged,
               "PL05101: the node budget cut the answer: allocation "
               "candidates: 2, bound none, stopped by the node budget; trees 4 "
               "in 1 read; providers 5; nodes 3, pruned 0, refused 0; "
               "facts 0 cached, 5 read",
               "candidates: the warning's words");
    opts.budget = 0;
    logged[0] = '\0';
    pl_store_ac_candidates(db, pool, req, &opts, cache, &w, &res);
    TAP_OK(!res->over_budget && res->cands->nelts == 4 && !logged[0],
           "candidates: the default budget, all four, no warning");
}

/* The next round follows the yield: trees 100..199, DISK_GB 1 each,
 * the odd ones used. limit=20 reads 36 trees first, which give 18; two
 * more wanted at one a two trees is 5 trees, a quarter more and 16:
 * 21, not four times 36 (every tree left). */
static void test_candidates_by_yield(void)
{
    pl_db_t *db = open_db();
    pl_store_ac_cache_t *cache = pl_store_ac_cache_make(pool, 1000);
    const pl_ac_request_t *req;
    pl_ac_result_t *res;
    pl_ac_world_t *w;
    pl_ac_opts_t opts;
    int i;

    exec(db, "INSERT INTO resource_classes (id, name) VALUES (2, 'DISK_GB')");
    for (i = 100; i < 200; i++) {
        add_disk_tree(db, i, i % 2);
    }
    req = request(pool, PL_MV(1, 39), "resources=DISK_GB:1&limit=20");
    memset(&opts, 0, sizeof(opts));
    opts.limit = req->limit;
    opts.max_candidates = -1;
    TAP_IS_INT(pl_store_ac_candidates(db, pool, req, &opts, cache, &w, &res),
               APR_SUCCESS, "by yield: read and built");
    TAP_IS_INT(res->cands->nelts, 20, "by yield: the bound's 20");
    TAP_IS_INT(w->reads, 2, "by yield: in two reads");
    TAP_IS_INT(w->roots_read, 36 + 21,
               "by yield: 36 trees, then the 21 their yield asks for");
    TAP_OK(w->truncated, "by yield: the trees after them left unread");
    TAP_IS_INT(APR_ARRAY_IDX(res->roots, 19, apr_int64_t), 138,
               "by yield: the 20th from tree 138, in id order");
}

int main(void)
{
    pl_db_t *db;

    apr_initialize();
    apr_pool_create(&pool, NULL);
    if (apr_dbd_init(pool) != APR_SUCCESS || (db = open_db()) == NULL) {
        printf("not ok 1 - an in-memory SQLite database\n");
        return 1;
    }
    test_cache_is_transparent(db);
    test_lookups_guessed(db);
    test_bound(db);
    /* a provider of a high id (nothing in it) makes the cloud look large
     * (more than 5,000 providers, and ten times the bound): the roots
     * are walked */
    exec(db, "INSERT INTO resource_providers (id, uuid, name, generation, "
             "root_provider_id) VALUES (1000000, "
             "'00000000-0000-0000-0000-00000000000f', 'far', 0, 1000000)");
    test_bound(db);
    test_small_cache(db);
    test_refilled(db);
    test_generation_rules(db);
    test_candidates();
    test_candidates_by_yield();
    return tap_done();
}
