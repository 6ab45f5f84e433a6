/* Licensed under the Apache License, Version 2.0.
 *
 * pl_idmap.c: the id -> pointer map of pl_idmap.h.
 */
#include <string.h>

#include "pl_idmap.h"

/* The value set's own marker when used as a set: any non-NULL pointer. */
static char present;

/* Ids are mostly dense sequences: the high bits of a 64-bit Fibonacci
 * product spread them over the slots (a mask of the low bits alone
 * would put neighbours into neighbouring slots and let runs merge). */
static apr_size_t slot_of(const pl_idmap_t *m, apr_int64_t id)
{
    apr_uint64_t x = (apr_uint64_t)id * 0x9e3779b97f4a7c15ULL;

    return (apr_size_t)(x >> 32) & m->mask;
}

static void alloc_slots(pl_idmap_t *m, apr_size_t size)
{
    m->mask = size - 1;
    m->slots = apr_pcalloc(m->p, size * sizeof(*m->slots));
}

pl_idmap_t *pl_idmap_make(apr_pool_t *p, apr_size_t hint)
{
    pl_idmap_t *m = apr_pcalloc(p, sizeof(*m));
    apr_size_t size = 16;

    while (size < hint * 2) {
        size *= 2;
    }
    m->p = p;
    alloc_slots(m, size);
    return m;
}

void *pl_idmap_get(const pl_idmap_t *m, apr_int64_t id)
{
    apr_size_t i;

    for (i = slot_of(m, id); m->slots[i].val; i = (i + 1) & m->mask) {
        if (m->slots[i].id == id) {
            return m->slots[i].val;
        }
    }
    return NULL;
}

/* The slot of id: its own, or the free one where it goes. */
static apr_size_t find(const pl_idmap_t *m, apr_int64_t id)
{
    apr_size_t i;

    for (i = slot_of(m, id); m->slots[i].val && m->slots[i].id != id;
         i = (i + 1) & m->mask) {
    }
    return i;
}

/* Twice the slots; the old arrays stay in the pool until it is cleared. */
static void grow(pl_idmap_t *m)
{
    apr_size_t size = m->mask + 1, i;
    const pl_idmap_slot_t *old = m->slots;

    alloc_slots(m, size * 2);
    for (i = 0; i < size; i++) {
        if (old[i].val) {
            m->slots[find(m, old[i].id)] = old[i];
        }
    }
}

void pl_idmap_set(pl_idmap_t *m, apr_int64_t id, void *val)
{
    apr_size_t i = find(m, id);

    if (m->slots[i].val == NULL) {
        if ((m->n + 1) * 2 > m->mask + 1) {
            grow(m);
            i = find(m, id);
        }
        m->slots[i].id = id;
        m->n++;
    }
    m->slots[i].val = val;
}

int pl_idmap_add(pl_idmap_t *m, apr_int64_t id)
{
    if (pl_idmap_has(m, id)) {
        return 0;
    }
    pl_idmap_set(m, id, &present);
    return 1;
}

void *pl_idmap_next(const pl_idmap_t *m, apr_size_t *pos, apr_int64_t *pid)
{
    while (*pos <= m->mask) {
        const pl_idmap_slot_t *slot = &m->slots[(*pos)++];

        if (slot->val) {
            if (pid) {
                *pid = slot->id;
            }
            return slot->val;
        }
    }
    return NULL;
}

void pl_idmap_clear(pl_idmap_t *m)
{
    memset(m->slots, 0, (m->mask + 1) * sizeof(*m->slots));
    m->n = 0;
}
