/* Licensed under the Apache License, Version 2.0.
 *
 * pl_db_list.c: statements over lists of values (pl_db_exec_list,
 * pl_db_select_list), cut into chunks of bounded shapes so that each list
 * statement has few texts, each kept prepared; and how a dialect writes
 * "in this set" (pl_db_in_set).
 */
#include <string.h>
#include <apr_strings.h>

#include "pl_db_private.h"

/* Chunk sizes are powers of two up to PL_DB_LIST_MAX (2^9): this many. */
#define LIST_SHAPES 10

/* A list of at most this many items (unpadded) is one statement of its
 * own size: a claim of three classes is one INSERT, not two. Each list
 * statement still has a bounded number of texts (LIST_SHAPES more). */
#define LIST_EXACT 8

/* The items of l, k of them, at w: the end. */
static char *list_items(char *w, const pl_db_list_t *l, int k)
{
    const char *sep = l->sep ? l->sep : ", ";
    apr_size_t item = strlen(l->item);
    int i;

    for (i = 0; i < k; i++) {
        if (i > 0) {
            const char *c;

            for (c = sep; *c; c++) { /* no terminator: the text goes on */
                *w++ = *c;
            }
        }
        memcpy(w, l->item, item);
        w += item;
    }
    return w;
}

/* The text of l for k items. */
static const char *list_text(apr_pool_t *p, const pl_db_list_t *l, int k)
{
    apr_size_t head = strlen(l->head), item = strlen(l->item);
    apr_size_t tail = strlen(l->tail);
    apr_size_t nsep = strlen(l->sep ? l->sep : ", ");
    apr_size_t again = l->again ? strlen(l->again) : 0;
    apr_size_t items = (apr_size_t)k * (item + nsep);
    char *text = apr_palloc(p, head + items * (l->again ? 2 : 1) + again +
                                   tail + 1);
    char *w = text;

    memcpy(w, l->head, head);
    w = list_items(w + head, l, k);
    if (l->again) {
        memcpy(w, l->again, again);
        w = list_items(w + again, l, k);
    }
    memcpy(w, l->tail, tail + 1);
    return text;
}

/* The next chunk out of n values left: all of them if at most
 * LIST_EXACT, else PL_DB_LIST_MAX or the largest power of two no
 * greater than n (with pad: the smallest no less than n); *pshape its
 * index among the texts. */
static int list_chunk(int n, int pad, int *pshape)
{
    int k = PL_DB_LIST_MAX, shape = LIST_SHAPES - 1;

    if (!pad && n <= LIST_EXACT) {
        *pshape = LIST_SHAPES + n - 1;
        return n;
    }

    while (k > n && !(pad && k / 2 < n)) {
        k >>= 1;
        shape--;
    }
    *pshape = shape;
    return k;
}

static apr_status_t run_list(pl_db_t *db, apr_pool_t *p, const pl_db_list_t *l,
                             const char *const *values, int n, pl_db_row_fn *fn,
                             void *baton, int *pchanged)
{
    const char *texts[LIST_SHAPES + LIST_EXACT] = { NULL };
    int nv = l->nvalues > 1 ? l->nvalues : 1;
    int per = nv + l->nextra, done, changed, i, k, shape;
    const char **args;
    apr_pool_t *scratch;
    apr_status_t rv = APR_SUCCESS;

    if (pchanged) {
        *pchanged = 0;
    }
    if (n <= 0) {
        return APR_SUCCESS;
    }
    args = apr_palloc(p, (apr_size_t)(l->nhead + 2 * PL_DB_LIST_MAX * per) *
                             sizeof(*args));
    if (l->nhead > 0) {
        memcpy(args, l->head_args, (apr_size_t)l->nhead * sizeof(*args));
    }
    apr_pool_create(&scratch, p);
    for (done = 0; done < n && rv == APR_SUCCESS; done += k) {
        k = list_chunk(n - done, l->pad, &shape);
        if (texts[shape] == NULL) {
            texts[shape] = list_text(p, l, k);
        }
        for (i = 0; i < k; i++) {
            const char **a = args + l->nhead + (apr_size_t)i * (apr_size_t)per;
            /* padding: the chunk's last value again */
            int from = done + i < n ? done + i : n - 1;

            memcpy(a, values + (apr_size_t)from * (apr_size_t)nv,
                   (apr_size_t)nv * sizeof(*a));
            if (l->nextra > 0) {
                memcpy(a + nv, l->extra, (apr_size_t)l->nextra * sizeof(*a));
            }
        }
        if (l->again) {
            memcpy(args + l->nhead + (apr_size_t)k * (apr_size_t)per,
                   args + l->nhead,
                   (apr_size_t)k * (apr_size_t)per * sizeof(*args));
        }
        apr_pool_clear(scratch);
        rv = pl_db_stmt_run_prepared(db, scratch, texts[shape],
                                     l->nhead + k * per * (l->again ? 2 : 1),
                                     args, fn, baton, &changed);
        if (rv == APR_SUCCESS && pchanged) {
            *pchanged += changed;
        }
    }
    apr_pool_destroy(scratch);
    return rv;
}

apr_status_t pl_db_exec_list(pl_db_t *db, apr_pool_t *p, const pl_db_list_t *l,
                             const char *const *values, int n, int *pchanged)
{
    return run_list(db, p, l, values, n, NULL, NULL, pchanged);
}

apr_status_t pl_db_select_list(pl_db_t *db, apr_pool_t *p,
                               const pl_db_list_t *l, const char *const *values,
                               int n, pl_db_row_fn *fn, void *baton)
{
    return run_list(db, p, l, values, n, fn, baton, NULL);
}

/* PostgreSQL's array: one text for any number of values, which the
 * server then keeps prepared (pl_db_stmt.c's kept statements). */
const char *pl_db_in_set(pl_db_t *db, apr_pool_t *p, const char *list,
                         apr_array_header_t *args)
{
    if (pl_db_dialect(db) != PL_DB_PGSQL) {
        return apr_pstrcat(p, "IN (", list, ")", NULL);
    }
    APR_ARRAY_PUSH(args, const char *) = apr_pstrcat(p, "{", list, "}", NULL);
    return "= ANY(%s)";
}
