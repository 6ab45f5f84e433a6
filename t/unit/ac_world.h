/* Licensed under the Apache License, Version 2.0.
 *
 * ac_world.h: building the world of the allocation-candidate engine by
 * hand (names, inventories, links) and requests from query text, for the
 * engine's unit tests.
 * Static inline, so a test that leaves a helper unused still compiles
 * without warnings.
 */
#ifndef PL_TEST_AC_WORLD_H
#define PL_TEST_AC_WORLD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <apr_strings.h>

#include "pl_ac.h"

static inline void add_name(apr_array_header_t *a, apr_int64_t id,
                            const char *n)
{
    pl_ac_name_t *e = apr_array_push(a);

    e->id = id;
    e->name = n;
}

/* total units of class rc on rp (in root's tree), used of them taken */
static inline void inv(pl_ac_world_t *w, apr_int64_t rp, apr_int64_t root,
                       apr_int64_t rc, apr_int64_t total, apr_int64_t used)
{
    pl_ac_inv_t *i = apr_array_push(w->invs);

    memset(i, 0, sizeof(*i));
    i->rp_id = rp;
    i->root_id = root;
    i->rc_id = rc;
    i->total = total;
    i->min_unit = 1;
    i->max_unit = total;
    i->step_size = 1;
    i->used = used;
    i->allocation_ratio = 1.0;
}

/* rp (in root's tree) has other: a trait, an aggregate, an ancestor */
static inline void link_(apr_array_header_t *a, apr_int64_t rp,
                         apr_int64_t root, apr_int64_t other)
{
    pl_ac_link_t *l = apr_array_push(a);

    l->rp_id = rp;
    l->root_id = root;
    l->other_id = other;
}

/* "k=v&k=v" -> request at mv (must parse) */
static inline pl_ac_request_t *request(apr_pool_t *p, int mv, const char *q)
{
    apr_array_header_t *a = apr_array_make(p, 4, sizeof(pl_ac_arg_t));
    char *s = apr_pstrdup(p, q), *last, *tok;
    const char *err = NULL, *code;
    pl_ac_request_t *req = NULL;

    for (tok = apr_strtok(s, "&", &last); tok;
         tok = apr_strtok(NULL, "&", &last)) {
        pl_ac_arg_t *arg = apr_array_push(a);
        char *eq = strchr(tok, '=');

        *eq = '\0';
        arg->key = tok;
        arg->value = eq + 1;
    }
    if (pl_ac_request_parse(p, mv, a, &req, &err, &code) != APR_SUCCESS) {
        fprintf(stderr, "# parse failed: %s\n", err);
        abort();
    }
    return req;
}

#endif /* PL_TEST_AC_WORLD_H */
