/* Licensed under the Apache License, Version 2.0.
 *
 * test_ac_cache.c: the providers' facts kept between candidate requests
 * (store_ac_cache.c): a copy comes back only at the uuid and generation it
 * was kept at; copies are the reader's own; a newer put replaces; the cache
 * starts again empty when full; a size of 0 keeps nothing; and threads
 * reading and writing at once only ever see whole, consistent facts.
 */
#include <stdio.h>
#include <string.h>

#include <apr_general.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>

#include "pl_store_ac_cache.h"
#include "tap.h"

static apr_pool_t *pool;

/* Facts of provider id at generation gen whose every number tells the
 * generation they belong to: a torn read would show. */
static pl_ac_facts_t *facts_at(apr_pool_t *p, apr_int64_t id, apr_int64_t gen)
{
    pl_ac_facts_t *f = apr_pcalloc(p, sizeof(*f));
    int i;

    f->id = id;
    f->generation = gen;
    f->uuid = apr_psprintf(p, "uuid-%d-%d", (int)id, (int)gen);
    f->ninvs = 1 + (int)(gen % 3);
    f->invs = apr_pcalloc(p, f->ninvs * sizeof(*f->invs));
    for (i = 0; i < f->ninvs; i++) {
        f->invs[i].rp_id = id;
        f->invs[i].rc_id = i;
        f->invs[i].total = gen * 10 + i;
        f->invs[i].allocation_ratio = 1.5;
    }
    f->ntraits = (int)(gen % 4);
    f->traits = apr_pcalloc(p, (f->ntraits + 1) * sizeof(*f->traits));
    for (i = 0; i < f->ntraits; i++) {
        f->traits[i].id = 100 + i;
        f->traits[i].name = apr_psprintf(p, "TRAIT_%d", 100 + i);
    }
    return f;
}

/* 1 if f is what facts_at(id, gen) made */
static int consistent(const pl_ac_facts_t *f, apr_int64_t id, apr_int64_t gen)
{
    char uuid[64];
    int i;

    snprintf(uuid, sizeof(uuid), "uuid-%d-%d", (int)id, (int)gen);
    if (f->id != id || f->generation != gen || strcmp(f->uuid, uuid) ||
        f->ninvs != 1 + (int)(gen % 3) || f->ntraits != (int)(gen % 4)) {
        return 0;
    }
    for (i = 0; i < f->ninvs; i++) {
        if (f->invs[i].total != gen * 10 + i || f->invs[i].rc_id != i ||
            f->invs[i].allocation_ratio != 1.5) {
            return 0;
        }
    }
    for (i = 0; i < f->ntraits; i++) {
        char name[32];

        snprintf(name, sizeof(name), "TRAIT_%d", 100 + i);
        if (f->traits[i].id != 100 + i || strcmp(f->traits[i].name, name)) {
            return 0;
        }
    }
    return 1;
}

static void put1(pl_store_ac_cache_t *c, apr_int64_t id, apr_int64_t gen)
{
    pl_ac_facts_t *f = facts_at(pool, id, gen);

    pl_store_ac_cache_put(c, 1, &f);
}

/* the facts kept of provider id as facts_at(id, gen) makes it, under
 * the uuid it would have */
static pl_ac_facts_t *get_as(pl_store_ac_cache_t *c, apr_int64_t id,
                             apr_int64_t gen, const char *uuid)
{
    pl_store_ac_cache_key_t key = { id, gen, uuid };
    pl_ac_facts_t *f;

    pl_store_ac_cache_get(c, pool, 1, &key, &f);
    return f;
}

static pl_ac_facts_t *get1(pl_store_ac_cache_t *c, apr_int64_t id,
                           apr_int64_t gen)
{
    return get_as(c, id, gen,
                  apr_psprintf(pool, "uuid-%d-%d", (int)id, (int)gen));
}

static void test_generations(void)
{
    pl_store_ac_cache_t *c = pl_store_ac_cache_make(pool, 10);
    pl_ac_facts_t *f;
    pl_store_ac_cache_key_t keys[3] = { { 1, 5, "uuid-1-5" },
                                        { 2, 5, "uuid-2-5" },
                                        { 3, 5, "uuid-3-5" } };
    pl_ac_facts_t *got[3];

    TAP_OK(get1(c, 1, 5) == NULL, "an empty cache has nothing");
    put1(c, 1, 5);
    f = get1(c, 1, 5);
    TAP_OK(f && consistent(f, 1, 5), "kept at generation 5, found at 5");
    TAP_OK(get1(c, 1, 6) == NULL, "not at generation 6");
    TAP_OK(get1(c, 1, 4) == NULL, "nor at 4");
    TAP_OK(get_as(c, 1, 5, "another-uuid") == NULL,
           "the same id and generation with another uuid: another provider "
           "(a database filled again)");
    put1(c, 1, 6);
    TAP_OK(get1(c, 1, 5) == NULL, "replaced: 5 is gone");
    f = get1(c, 1, 6);
    TAP_OK(f && consistent(f, 1, 6), "6 is there");

    /* the copy is the reader's */
    f->invs[0].total = -1;
    f->traits[0].name = "CHANGED";
    f = get1(c, 1, 6);
    TAP_OK(f && consistent(f, 1, 6), "changing a copy changes nothing kept");

    put1(c, 3, 5);
    TAP_IS_INT(pl_store_ac_cache_get(c, pool, 3, keys, got), 1,
               "several at once: the hits counted");
    TAP_OK(got[0] == NULL && got[1] == NULL && got[2] &&
               consistent(got[2], 3, 5),
           "misses are NULL, in the order asked");
}

static void test_bounds(void)
{
    pl_store_ac_cache_t *c = pl_store_ac_cache_make(pool, 3);
    int kept, resets, i;

    TAP_OK(pl_store_ac_cache_make(pool, 0) == NULL, "a size of 0: no cache");
    TAP_OK(get1(NULL, 1, 1) == NULL, "no cache: nothing found");
    put1(NULL, 1, 1); /* no cache: does nothing */
    for (i = 1; i <= 3; i++) {
        put1(c, i, 1);
    }
    pl_store_ac_cache_stats(c, &kept, &resets);
    TAP_IS_INT(kept, 3, "three kept");
    TAP_IS_INT(resets, 0, "no reset yet");
    put1(c, 4, 1);
    pl_store_ac_cache_stats(c, &kept, &resets);
    TAP_IS_INT(kept, 1, "full: it started again with the new one");
    TAP_IS_INT(resets, 1, "one reset");
    TAP_OK(get1(c, 1, 1) == NULL && get1(c, 4, 1) != NULL,
           "the old ones are gone, the new one is there");
    for (i = 0; i < 5; i++) {
        put1(c, 4, 2 + i); /* replacements count against the size too */
    }
    pl_store_ac_cache_stats(c, &kept, &resets);
    TAP_OK(resets >= 2, "replacing over and over resets too (%d)", resets);
    TAP_OK(get1(c, 4, 6) && consistent(get1(c, 4, 6), 4, 6),
           "the last one put is there");
}

/* Threads: each puts and gets providers 0..NPROV-1 at generations that
 * keep moving; every hit must be whole and of the generation asked. */
#define NTHREADS 4
#define NPROV 50
#define ROUNDS 4000

typedef struct worker_t {
    pl_store_ac_cache_t *c;
    int seed;
    int hits, bad;
} worker_t;

static void *APR_THREAD_FUNC work(apr_thread_t *t, void *data)
{
    worker_t *w = data;
    apr_pool_t *p;
    int r;

    apr_pool_create(&p, NULL);
    for (r = 0; r < ROUNDS; r++) {
        apr_int64_t id = (w->seed + r * 7) % NPROV;
        apr_int64_t gen = (r / 16) % 5;
        pl_ac_facts_t *f = facts_at(p, id, gen), *got;
        pl_store_ac_cache_key_t key = { id, gen, f->uuid };

        if (r % 3 == 0) {
            pl_store_ac_cache_put(w->c, 1, &f);
        }
        pl_store_ac_cache_get(w->c, p, 1, &key, &got);
        if (got) {
            w->hits++;
            w->bad += !consistent(got, id, gen);
        }
        if (r % 256 == 255) {
            apr_pool_clear(p);
        }
    }
    apr_pool_destroy(p);
    apr_thread_exit(t, APR_SUCCESS);
    return NULL;
}

static void test_threads(void)
{
    /* small, so that resets happen while others read */
    pl_store_ac_cache_t *c = pl_store_ac_cache_make(pool, 40);
    apr_thread_t *threads[NTHREADS];
    worker_t workers[NTHREADS];
    int i, hits = 0, bad = 0, resets, kept;

    for (i = 0; i < NTHREADS; i++) {
        workers[i].c = c;
        workers[i].seed = i * 13;
        workers[i].hits = workers[i].bad = 0;
        apr_thread_create(&threads[i], NULL, work, &workers[i], pool);
    }
    for (i = 0; i < NTHREADS; i++) {
        apr_status_t rv;

        apr_thread_join(&rv, threads[i]);
        hits += workers[i].hits;
        bad += workers[i].bad;
    }
    pl_store_ac_cache_stats(c, &kept, &resets);
    TAP_OK(hits > 0, "threads found what threads put (%d hits)", hits);
    TAP_IS_INT(bad, 0, "every hit whole and of its generation");
    TAP_OK(resets > 0, "resets happened meanwhile (%d)", resets);
}

int main(void)
{
    apr_initialize();
    apr_pool_create(&pool, NULL);
    test_generations();
    test_bounds();
    test_threads();
    return tap_done();
}
