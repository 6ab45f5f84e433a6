/* Licensed under the Apache License, Version 2.0.
 *
 * store_ac_cache.c: the providers' facts an httpd child keeps between
 * allocation-candidate requests (see pl_store_ac_cache.h for why they cannot
 * go stale). The entries live in a pool of the cache's own, with an
 * allocator of its own, so that threads allocating elsewhere never meet
 * it; it is only written under the write lock and cleared, all at once,
 * when the cache is full. Readers copy the entries they need under the
 * read lock, so nothing they hold is freed under them. Trait names are
 * kept once each, for the life of the child, in a pool never cleared: a
 * trait id names one trait for good (traits are never renamed), there
 * are a few hundred, and readers can then take the names as they are.
 * The last rows of each statement of lookups live in a third pool,
 * cleared once LOOKUPS_MAX copies were kept in it. The trees per
 * candidate of the last request of each shape live in a small table, a
 * slot for each hash of the shape, the last one winning a slot.
 */
#include <string.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_thread_rwlock.h>

#include "pl_store_ac_cache.h"
#include "pl_idmap.h"

#define YIELDS_KEPT 64

struct pl_store_ac_cache_t {
    apr_thread_rwlock_t *lock;
    apr_pool_t *pool;       /* the entries */
    pl_idmap_t *by_id;      /* provider id -> pl_ac_facts_t */
    apr_pool_t *names_pool; /* the names, never cleared */
    pl_idmap_t *names;      /* trait id -> const char * */
    apr_pool_t *lookups_pool;
    apr_hash_t *lookups; /* sql text -> pl_rows_t */
    int lookups_stored;  /* copies since the last clear */
    int max;             /* entries kept at most */
    int stored;          /* entries stored since the last reset */
    int resets;
    struct {
        apr_uint64_t shape; /* its hash; 0: free */
        double trees_per_cand;
    } yields[YIELDS_KEPT];
};

static apr_status_t destroy_pool(void *data)
{
    apr_pool_destroy(data);
    return APR_SUCCESS;
}

/* A pool of its own allocator, destroyed with p; what it frees goes
 * back to the system beyond 1 MB, not to a free list. */
static apr_pool_t *own_pool(apr_pool_t *p, const char *tag)
{
    apr_allocator_t *allocator;
    apr_pool_t *pool;

    if (apr_allocator_create(&allocator) != APR_SUCCESS) {
        return NULL;
    }
    if (apr_pool_create_ex(&pool, NULL, NULL, allocator) != APR_SUCCESS) {
        apr_allocator_destroy(allocator);
        return NULL;
    }
    apr_allocator_owner_set(allocator, pool);
    apr_allocator_max_free_set(allocator, (apr_size_t)1024 * 1024);
    apr_pool_tag(pool, tag);
    apr_pool_cleanup_register(p, pool, destroy_pool, apr_pool_cleanup_null);
    return pool;
}

pl_store_ac_cache_t *pl_store_ac_cache_make(apr_pool_t *p, int max_providers)
{
    pl_store_ac_cache_t *c;

    if (max_providers <= 0) {
        return NULL;
    }
    c = apr_pcalloc(p, sizeof(*c));
    if (apr_thread_rwlock_create(&c->lock, p) != APR_SUCCESS ||
        (c->pool = own_pool(p, "pl_store_ac_cache")) == NULL ||
        (c->names_pool = own_pool(p, "pl_store_ac_cache_names")) == NULL ||
        (c->lookups_pool = own_pool(p, "pl_store_ac_cache_lookups")) == NULL) {
        return NULL;
    }
    c->by_id = pl_idmap_make(c->pool, 1024);
    c->names = pl_idmap_make(c->names_pool, 256);
    c->lookups = apr_hash_make(c->lookups_pool);
    c->max = max_providers;
    return c;
}

static void *dup_array(apr_pool_t *p, const void *a, int n, apr_size_t size)
{
    void *out = apr_palloc(p, (n > 0 ? n : 1) * size);

    if (n > 0) {
        memcpy(out, a, n * size);
    }
    return out;
}

/* a copy of f from p, with the uuid given; its trait names still f's */
static pl_ac_facts_t *copy_facts(apr_pool_t *p, const pl_ac_facts_t *f,
                                 const char *uuid)
{
    pl_ac_facts_t *out = apr_pmemdup(p, f, sizeof(*f));

    out->uuid = uuid;
    out->invs = dup_array(p, f->invs, f->ninvs, sizeof(*f->invs));
    out->traits = dup_array(p, f->traits, f->ntraits, sizeof(*f->traits));
    return out;
}

int pl_store_ac_cache_get(pl_store_ac_cache_t *c, apr_pool_t *p, int n,
                          const pl_store_ac_cache_key_t *keys,
                          pl_ac_facts_t **facts)
{
    int i, found = 0;

    if (c == NULL) {
        /* an array of pointers: sizeof(pointer) is meant
         * NOLINTNEXTLINE(bugprone-sizeof-expression) */
        memset(facts, 0, n * sizeof(*facts));
        return 0;
    }
    apr_thread_rwlock_rdlock(c->lock);
    for (i = 0; i < n; i++) {
        const pl_store_ac_cache_key_t *k = &keys[i];
        const pl_ac_facts_t *f = pl_idmap_get(c->by_id, k->id);

        facts[i] = NULL;
        if (f && f->generation == k->generation && !strcmp(f->uuid, k->uuid)) {
            facts[i] = copy_facts(p, f, k->uuid);
            found++;
        }
    }
    apr_thread_rwlock_unlock(c->lock);
    return found;
}

/* Under the write lock: start again empty. */
static void reset(pl_store_ac_cache_t *c)
{
    apr_pool_clear(c->pool);
    c->by_id = pl_idmap_make(c->pool, 1024);
    c->stored = 0;
    c->resets++;
}

/* Under the write lock: one trait name, kept once per id. */
static const char *intern(pl_store_ac_cache_t *c, apr_int64_t id,
                          const char *name)
{
    const char *kept = pl_idmap_get(c->names, id);

    if (kept == NULL || strcmp(kept, name) != 0) {
        kept = apr_pstrdup(c->names_pool, name);
        pl_idmap_set(c->names, id, (void *)kept);
    }
    return kept;
}

int pl_store_ac_cache_put(pl_store_ac_cache_t *c, int n,
                          pl_ac_facts_t *const *facts)
{
    int i, j, full;

    if (c == NULL || n <= 0) {
        return 0;
    }
    apr_thread_rwlock_wrlock(c->lock);
    /* replaced entries stay in the pool until a reset: count them too */
    if ((full = c->stored + n > c->max)) {
        reset(c);
    }
    for (i = 0; i < n && c->stored < c->max; i++) {
        pl_ac_facts_t *f = copy_facts(c->pool, facts[i],
                                      apr_pstrdup(c->pool, facts[i]->uuid));

        for (j = 0; j < f->ntraits; j++) {
            f->traits[j].name = intern(c, f->traits[j].id, f->traits[j].name);
        }
        pl_idmap_set(c->by_id, f->id, f);
        c->stored++;
    }
    apr_thread_rwlock_unlock(c->lock);
    return full;
}

/* Copies of lookups kept at most between two clears (a replaced one
 * stays in the pool): statements differ by the names asked for, not by
 * amounts, so a scheduler has a few kinds; their rows change when a
 * provider is added or starts sharing. */
#define LOOKUPS_MAX 256

static pl_rows_t *copy_rows(apr_pool_t *p, const pl_rows_t *rows)
{
    pl_rows_t *out = apr_pmemdup(p, rows, sizeof(*rows));
    int i, n = rows->nrows * rows->ncols;

    out->cells = apr_palloc(p, (n + 1) * sizeof(*out->cells));
    for (i = 0; i < n; i++) {
        out->cells[i] = rows->cells[i] ? apr_pstrdup(p, rows->cells[i]) : NULL;
    }
    return out;
}

pl_rows_t *pl_store_ac_cache_lookups(pl_store_ac_cache_t *c, apr_pool_t *p,
                                     const char *sql)
{
    const pl_rows_t *kept;
    pl_rows_t *out = NULL;

    if (c == NULL) {
        return NULL;
    }
    apr_thread_rwlock_rdlock(c->lock);
    if ((kept = apr_hash_get(c->lookups, sql, APR_HASH_KEY_STRING)) != NULL) {
        out = copy_rows(p, kept);
    }
    apr_thread_rwlock_unlock(c->lock);
    return out;
}

void pl_store_ac_cache_keep_lookups(pl_store_ac_cache_t *c, const char *sql,
                                    const pl_rows_t *rows)
{
    if (c == NULL) {
        return;
    }
    apr_thread_rwlock_wrlock(c->lock);
    if (++c->lookups_stored > LOOKUPS_MAX) {
        apr_pool_clear(c->lookups_pool);
        c->lookups = apr_hash_make(c->lookups_pool);
        c->lookups_stored = 1;
    }
    apr_hash_set(c->lookups, apr_pstrdup(c->lookups_pool, sql),
                 APR_HASH_KEY_STRING, copy_rows(c->lookups_pool, rows));
    apr_thread_rwlock_unlock(c->lock);
}

void pl_store_ac_cache_stats(pl_store_ac_cache_t *c, int *pkept, int *presets)
{
    *pkept = 0;
    *presets = 0;
    if (c == NULL) {
        return;
    }
    apr_thread_rwlock_rdlock(c->lock);
    *pkept = (int)pl_idmap_count(c->by_id);
    *presets = c->resets;
    apr_thread_rwlock_unlock(c->lock);
}

/* FNV-1a of the shape, never 0 (a free slot's) */
static apr_uint64_t shape_hash(const char *shape)
{
    apr_uint64_t h = APR_UINT64_C(14695981039346656037);

    for (; *shape; shape++) {
        h = (h ^ (unsigned char)*shape) * APR_UINT64_C(1099511628211);
    }
    return h ? h : 1;
}

double pl_store_ac_cache_trees_per_cand(pl_store_ac_cache_t *c,
                                        const char *shape)
{
    apr_uint64_t h;
    double n = 0;

    if (c == NULL || shape == NULL) {
        return 0;
    }
    h = shape_hash(shape);
    apr_thread_rwlock_rdlock(c->lock);
    if (c->yields[h % YIELDS_KEPT].shape == h) {
        n = c->yields[h % YIELDS_KEPT].trees_per_cand;
    }
    apr_thread_rwlock_unlock(c->lock);
    return n;
}

void pl_store_ac_cache_keep_trees_per_cand(pl_store_ac_cache_t *c,
                                           const char *shape, double n)
{
    apr_uint64_t h;

    if (c == NULL || shape == NULL) {
        return;
    }
    h = shape_hash(shape);
    apr_thread_rwlock_wrlock(c->lock);
    c->yields[h % YIELDS_KEPT].shape = h;
    c->yields[h % YIELDS_KEPT].trees_per_cand = n;
    apr_thread_rwlock_unlock(c->lock);
}
