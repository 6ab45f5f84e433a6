/* Licensed under the Apache License, Version 2.0.
 *
 * pl_coalesce.c: identical requests answered by one computation
 * (PlacementCoalesceCandidates, issue 37).
 *
 * Ten clients asking the same allocation candidates at once (upstream's
 * perf gate; nova's scheduler booting many servers of one flavor) made
 * ten computations of one answer, each the same statements and the same
 * search. Here the requests of one key in a child share one.
 *
 * No answer is older than its request: a request never joins a
 * computation already under way (its snapshot of the database may have
 * been taken before the request arrived, and miss a write the client
 * saw acknowledged). It waits for the next one, which starts only once
 * the running one has ended: every request of that batch arrived before
 * it started, so its snapshot is later than each of them, and earlier
 * than each answer. Reads stay linearizable, as upstream's are.
 *
 * A slot of the table holds at most the running computation of one key
 * and the batch waiting to follow it. A request of another key that
 * meets the slot busy computes alone, as without coalescing. When the
 * leader has no answer to share (an error, an answer over
 * SHARE_MAX_BYTES), each request of its batch computes its own.
 * Followers hold a worker thread while they wait, no database
 * connection.
 *
 * A slot also keeps the last answer of its key with the version of the
 * database it was computed at, when the database gives one (PostgreSQL:
 * its snapshot, which any commit made visible changes). A batch whose
 * leader reads that same version, after its requests arrived, is
 * answered with it: nothing the answer depends on can have changed.
 */
#include <string.h>
#include <stdlib.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>

#include "pl_coalesce.h"
#include "pl_pages.h"

/* Slots of the child's table: a key takes the slot of its hash. */
#define SLOTS 64

/* Answers shared at most this long: one copy of a batch's answer, read
 * in place by its requests, lives until the last of them has sent it. */
#define SHARE_MAX_BYTES ((apr_size_t)64 * 1024 * 1024)

/* Answers kept for later requests: each at most
 * PL_COALESCE_KEEP_MAX_BYTES, all of a child's at most KEEP_TOTAL_BYTES
 * (a new one that does not fit is not kept). */
#define KEEP_TOTAL_BYTES ((apr_size_t)16 * 1024 * 1024)

typedef enum { WAITING, RUNNING, ANSWERED, UNANSWERED } state_e;

/* one answer's text and the references to it: each request sending it,
 * its batch, its slot while kept (outlives its requests; the text in
 * pages of its own, pl_pages.h) */
typedef struct text_t {
    int refs;
    char *key;     /* while kept: the key and the database's version */
    char *version; /* NULL: never kept */
    pl_coalesce_answer_t a;
} text_t;

/* one computation and the requests waiting for it (malloc'd: it outlives
 * the request that made it while its followers still wait) */
typedef struct shared_t {
    char *key;
    state_e state;
    int refs; /* the leader and each follower not yet done */
    int followers;
    text_t *answer; /* ANSWERED */
} shared_t;

typedef struct slot_t {
    shared_t *running;
    shared_t *next;
    text_t *kept; /* the last answer computed at a known version */
} slot_t;

struct pl_coalesce_batch_t {
    shared_t *shared;
    slot_t *slot;
    int done;
};

static struct {
    apr_thread_mutex_t *lock;
    apr_thread_cond_t *changed; /* any slot's state moved */
    slot_t slots[SLOTS];
    apr_size_t kept_bytes;
} table;

void pl_coalesce_child_init(apr_pool_t *pchild)
{
    if (apr_thread_mutex_create(&table.lock, APR_THREAD_MUTEX_DEFAULT,
                                pchild) != APR_SUCCESS ||
        apr_thread_cond_create(&table.changed, pchild) != APR_SUCCESS) {
        table.lock = NULL; /* no coalescing: every request computes */
    }
}

/* a as a text_t that owns buf, its text in pages of its own (pl_pages.h:
 * outside malloc's arenas), with a copy of key and version when it may be
 * kept; NULL, and buf freed, without memory */
static text_t *text_wrap(char *buf, const pl_coalesce_answer_t *a,
                         const char *key, const char *version)
{
    text_t *t = buf ? calloc(1, sizeof(*t)) : NULL;

    if (t == NULL) {
        pl_pages_free(buf, a->len);
        return NULL;
    }
    if (version && ((t->key = strdup(key)) == NULL ||
                    (t->version = strdup(version)) == NULL)) {
        free(t->key);
        t->key = NULL; /* cannot be kept: only shared */
    }
    t->refs = 1;
    t->a = *a;
    t->a.text = buf;
    return t;
}

/* a copy of a, or NULL */
static text_t *text_new(const pl_coalesce_answer_t *a, const char *key,
                        const char *version)
{
    char *buf = pl_pages_alloc(a->len);

    if (buf) {
        memcpy(buf, a->text, a->len);
    }
    return text_wrap(buf, a, key, version);
}

/* one reference less, under the lock */
static void text_release(text_t *t)
{
    if (t && --t->refs == 0) {
        pl_pages_free((char *)t->a.text, t->a.len);
        free(t->key);
        free(t->version);
        free(t);
    }
}

/* a request's reference, dropped when its answer has been sent */
static apr_status_t release_later(void *data)
{
    if (apr_thread_mutex_lock(table.lock) == APR_SUCCESS) {
        text_release(data);
        apr_thread_mutex_unlock(table.lock);
    }
    return APR_SUCCESS;
}

/* t for a request of pool p, under the lock */
static void hand_out(apr_pool_t *p, text_t *t, pl_coalesce_answer_t *out)
{
    t->refs++;
    apr_pool_cleanup_register(p, t, release_later, apr_pool_cleanup_null);
    *out = t->a;
}

/* t kept in slot in place of its last answer, if it fits; under the lock */
static void keep(slot_t *slot, text_t *t)
{
    apr_size_t freed = slot->kept ? slot->kept->a.len : 0;

    if (t->key == NULL || t->a.len > PL_COALESCE_KEEP_MAX_BYTES ||
        table.kept_bytes - freed + t->a.len > KEEP_TOTAL_BYTES) {
        return;
    }
    text_release(slot->kept);
    table.kept_bytes += t->a.len - freed;
    slot->kept = t;
    t->refs++;
}

static shared_t *shared_new(const char *key, state_e state)
{
    shared_t *s = calloc(1, sizeof(*s));

    if (s && (s->key = strdup(key)) == NULL) {
        free(s);
        s = NULL;
    }
    if (s) {
        s->state = state;
        s->refs = 1;
    }
    return s;
}

/* one reference less, under the lock */
static void shared_release(shared_t *s)
{
    if (--s->refs == 0) {
        text_release(s->answer);
        free(s->key);
        free(s);
    }
}

/* the batch of b ended with t (NULL: unanswered), under the lock */
static void end_batch(pl_coalesce_batch_t *b, text_t *t)
{
    shared_t *s = b->shared;

    b->done = 1;
    if (t) {
        s->answer = t;
        t->refs++;
    }
    s->state = t ? ANSWERED : UNANSWERED;
    if (b->slot->running == s) {
        b->slot->running = NULL;
    }
    apr_thread_cond_broadcast(table.changed);
    shared_release(s);
}

static apr_status_t publish_unanswered(void *data)
{
    pl_coalesce_publish(data, NULL, NULL);
    return APR_SUCCESS;
}

static slot_t *slot_of(const char *key)
{
    apr_ssize_t klen = (apr_ssize_t)strlen(key);

    return &table.slots[apr_hashfunc_default(key, &klen) % SLOTS];
}

static pl_coalesce_batch_t *lead(apr_pool_t *p, slot_t *slot, shared_t *s)
{
    pl_coalesce_batch_t *b = apr_pcalloc(p, sizeof(*b));

    b->shared = s;
    b->slot = slot;
    apr_pool_cleanup_register(p, b, publish_unanswered, apr_pool_cleanup_null);
    return b;
}

int pl_coalesce_join(apr_pool_t *p, const char *key, pl_coalesce_batch_t **pb,
                     int *followers, pl_coalesce_answer_t *out)
{
    slot_t *slot = slot_of(key);
    shared_t *s;

    memset(out, 0, sizeof(*out));
    *pb = NULL;
    *followers = 0;
    if (table.lock == NULL ||
        apr_thread_mutex_lock(table.lock) != APR_SUCCESS) {
        return 0;
    }
    if (slot->running == NULL && slot->next == NULL) { /* compute now */
        if ((s = shared_new(key, RUNNING)) != NULL) {
            slot->running = s;
            *pb = lead(p, slot, s);
        }
        apr_thread_mutex_unlock(table.lock);
        return 0;
    }
    if ((slot->running && strcmp(slot->running->key, key) != 0) ||
        (slot->next && strcmp(slot->next->key, key) != 0)) {
        apr_thread_mutex_unlock(table.lock); /* another key's slot */
        return 0;
    }
    if (slot->next == NULL) { /* the next computation, led by this one */
        if ((s = shared_new(key, WAITING)) == NULL) {
            apr_thread_mutex_unlock(table.lock);
            return 0;
        }
        slot->next = s;
        while (slot->running != NULL) {
            apr_thread_cond_wait(table.changed, table.lock);
        }
        slot->running = s;
        slot->next = NULL;
        s->state = RUNNING;
        *followers = s->followers;
        *pb = lead(p, slot, s);
        apr_thread_mutex_unlock(table.lock);
        return 0;
    }
    /* follow the batch that has not started (its leader may be waking) */
    s = slot->next;
    s->refs++;
    s->followers++;
    while (s->state == WAITING || s->state == RUNNING) {
        apr_thread_cond_wait(table.changed, table.lock);
    }
    if (s->state == ANSWERED) {
        hand_out(p, s->answer, out);
    }
    shared_release(s);
    apr_thread_mutex_unlock(table.lock);
    return out->text != NULL;
}

int pl_coalesce_kept(pl_coalesce_batch_t *b, apr_pool_t *p, const char *version,
                     pl_coalesce_answer_t *out)
{
    text_t *t;

    if (b == NULL || b->done ||
        apr_thread_mutex_lock(table.lock) != APR_SUCCESS) {
        return 0;
    }
    t = b->slot->kept;
    if (t == NULL || strcmp(t->key, b->shared->key) != 0 ||
        strcmp(t->version, version) != 0) {
        apr_thread_mutex_unlock(table.lock);
        return 0;
    }
    hand_out(p, t, out);
    end_batch(b, t);
    apr_thread_mutex_unlock(table.lock);
    return 1;
}

int pl_coalesce_publish(pl_coalesce_batch_t *b, const pl_coalesce_answer_t *a,
                        const char *version)
{
    text_t *t = NULL;
    shared_t *s;
    int answered;

    if (b == NULL || b->done) {
        return 0;
    }
    s = b->shared;
    /* copied before taking the lock: followers join only a batch that
     * has not started, so this one's are all counted already */
    if (a && ((s->followers > 0 && a->len <= SHARE_MAX_BYTES) ||
              (version && a->len <= PL_COALESCE_KEEP_MAX_BYTES))) {
        t = text_new(a, s->key, version);
    }
    if (apr_thread_mutex_lock(table.lock) != APR_SUCCESS) {
        text_release(t);
        return 0; /* cannot happen with a default mutex */
    }
    if (t) {
        keep(b->slot, t);
    }
    answered = t && a->len <= SHARE_MAX_BYTES ? s->followers : 0;
    end_batch(b, answered ? t : NULL);
    text_release(t); /* text_new's reference */
    apr_thread_mutex_unlock(table.lock);
    return answered;
}

void pl_coalesce_keep(const char *key, const pl_coalesce_answer_t *a,
                      const char *version)
{
    text_t *t = text_wrap((char *)a->text, a, key, version);

    if (t == NULL) {
        return;
    }
    if (table.lock && apr_thread_mutex_lock(table.lock) == APR_SUCCESS) {
        keep(slot_of(key), t);
        text_release(t);
        apr_thread_mutex_unlock(table.lock);
        return;
    }
    text_release(t); /* no table: no other reference */
}
