/* Licensed under the Apache License, Version 2.0.
 *
 * pl_coalesce.c: identical requests that arrive together, answered by
 * one computation (PlacementCoalesceCandidates, issue 37).
 *
 * Ten clients asking the same allocation candidates at once (upstream's
 * perf gate; nova's scheduler booting many servers of one flavor) made
 * ten computations of one answer, each the same statement and the same
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
 */
#include <string.h>
#include <stdlib.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>

#include "pl_coalesce.h"

/* Slots of the child's table: a key takes the slot of its hash. */
#define SLOTS 64

/* Answers shared at most this long: one copy of a batch's answer, read
 * in place by its followers, lives until the last of them has sent it. */
#define SHARE_MAX_BYTES ((apr_size_t)64 * 1024 * 1024)

typedef enum { WAITING, RUNNING, ANSWERED, UNANSWERED } state_e;

/* one computation and the requests waiting for it (malloc'd: it outlives
 * the request that made it while its followers still send its answer) */
typedef struct shared_t {
    char *key;
    state_e state;
    int refs; /* the leader and each follower not yet done */
    int followers;
    char *text;
    apr_size_t len;
} shared_t;

typedef struct slot_t {
    shared_t *running;
    shared_t *next;
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
} table;

void pl_coalesce_child_init(apr_pool_t *pchild)
{
    if (apr_thread_mutex_create(&table.lock, APR_THREAD_MUTEX_DEFAULT,
                                pchild) != APR_SUCCESS ||
        apr_thread_cond_create(&table.changed, pchild) != APR_SUCCESS) {
        table.lock = NULL; /* no coalescing: every request computes */
    }
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
        free(s->text);
        free(s->key);
        free(s);
    }
}

/* a follower's reference, dropped when its answer has been sent */
static apr_status_t release_later(void *data)
{
    if (apr_thread_mutex_lock(table.lock) == APR_SUCCESS) {
        shared_release(data);
        apr_thread_mutex_unlock(table.lock);
    }
    return APR_SUCCESS;
}

static apr_status_t publish_unanswered(void *data)
{
    pl_coalesce_publish(data, NULL, 0);
    return APR_SUCCESS;
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
                     int *followers, const char **text, apr_size_t *len)
{
    apr_ssize_t klen = (apr_ssize_t)strlen(key);
    slot_t *slot = &table.slots[apr_hashfunc_default(key, &klen) % SLOTS];
    shared_t *s;

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
        /* the text does not change any more: it is read in place, and
         * our reference keeps it until the request's pool goes */
        *text = s->text;
        *len = s->len;
        apr_pool_cleanup_register(p, s, release_later, apr_pool_cleanup_null);
        apr_thread_mutex_unlock(table.lock);
        return 1;
    }
    shared_release(s);
    apr_thread_mutex_unlock(table.lock);
    return 0;
}

int pl_coalesce_publish(pl_coalesce_batch_t *b, const char *text,
                        apr_size_t len)
{
    char *copy = NULL;
    shared_t *s;
    int answered;

    if (b == NULL || b->done) {
        return 0;
    }
    b->done = 1;
    s = b->shared;
    /* copied before taking the lock: followers join only a batch that
     * has not started, so this one's are all counted already */
    if (text && s->followers > 0 && len <= SHARE_MAX_BYTES &&
        (copy = malloc(len ? len : 1)) != NULL) {
        memcpy(copy, text, len);
    }
    if (apr_thread_mutex_lock(table.lock) != APR_SUCCESS) {
        free(copy);
        return 0; /* cannot happen with a default mutex */
    }
    s->state = copy ? ANSWERED : UNANSWERED;
    s->text = copy;
    s->len = copy ? len : 0;
    if (b->slot->running == s) {
        b->slot->running = NULL;
    }
    answered = copy ? s->followers : 0;
    apr_thread_cond_broadcast(table.changed);
    shared_release(s);
    apr_thread_mutex_unlock(table.lock);
    return answered;
}
