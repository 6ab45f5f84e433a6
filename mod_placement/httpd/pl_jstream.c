/* Licensed under the Apache License, Version 2.0.
 *
 * pl_jstream.c: JSON text into a growing buffer or, for a response, into
 * a fixed buffer sent to the client whenever it is full (pl_jstream.h).
 */
/* before APR: its ring macros then use offsetof, not a null pointer */
#include <stddef.h>
#include <string.h>
#include <apr_strings.h>
#include <apr_buckets.h>
#include <http_protocol.h>
#include <util_filter.h>

#include "pl_jstream.h"
#include "pl_pages.h"
#include "pl_py.h"

void pl_jstream_text(pl_jstream_t *js, apr_pool_t *p, apr_size_t estimate)
{
    memset(js, 0, sizeof(*js));
    js->p = p;
    if (estimate) {
        pl_jstream_reserve(js, estimate);
    }
}

void pl_jstream_response(pl_jstream_t *js, request_rec *r, apr_pool_t *p,
                         apr_size_t size)
{
    memset(js, 0, sizeof(*js));
    js->p = p;
    js->r = r;
    js->bb = apr_brigade_create(p, r->connection->bucket_alloc);
    js->cap = size;
    js->s = apr_bucket_alloc(size, js->bb->bucket_alloc);
}

struct pl_jstream_copy_t {
    char *s; /* NULL: none (too long, or no memory) */
    apr_size_t len, cap, max;
};

static apr_status_t free_copy(void *data)
{
    pl_jstream_copy_t *c = data;

    pl_pages_free(c->s, c->cap);
    c->s = NULL;
    return APR_SUCCESS;
}

void pl_jstream_copy(pl_jstream_t *js, apr_size_t max)
{
    js->copy = apr_pcalloc(js->p, sizeof(*js->copy));
    js->copy->max = max;
    js->copy->s = pl_pages_alloc(js->cap);
    js->copy->cap = js->copy->s ? js->cap : 0;
    apr_pool_cleanup_register(js->p, js->copy, free_copy,
                              apr_pool_cleanup_null);
}

/* the buffer's bytes added to the copy, or the copy given up */
static void add_to_copy(pl_jstream_copy_t *c, const char *s, apr_size_t n)
{
    apr_size_t cap = c->cap;
    char *ns;

    if (c->s == NULL) {
        return;
    }
    if (c->len + n > c->max) {
        free_copy(c);
        return;
    }
    while (cap < c->len + n) {
        cap *= 2;
    }
    if (cap > c->cap) {
        if ((ns = pl_pages_resize(c->s, c->cap, cap)) == NULL) {
            free_copy(c);
            return;
        }
        c->s = ns;
        c->cap = cap;
    }
    memcpy(c->s + c->len, s, n);
    c->len += n;
}

char *pl_jstream_take_copy(pl_jstream_t *js, apr_size_t *len)
{
    pl_jstream_copy_t *c = js->copy;
    char *s = c && !js->failed ? c->s : NULL;

    /* its size made its length: what pl_pages_free will be told */
    if (s && (s = pl_pages_resize(s, c->cap, c->len)) != NULL) {
        *len = c->len;
        c->s = NULL;
    }
    return s;
}

/* Response mode: the buffer to the output filters as a heap bucket that
 * owns it (freed once written, back to the connection's bucket
 * allocator, which hands it out again for the next one): no copy of the
 * answer. */
static void send_buffer(pl_jstream_t *js)
{
    apr_bucket_alloc_t *list = js->bb->bucket_alloc;
    apr_bucket *b;

    if (js->len == 0 || js->failed) {
        js->len = 0;
        return;
    }
    if (js->copy) {
        add_to_copy(js->copy, js->s, js->len);
    }
    b = apr_bucket_heap_create(js->s, js->len, apr_bucket_free, list);
    js->s = apr_bucket_alloc(js->cap, list);
    APR_BRIGADE_INSERT_TAIL(js->bb, b);
    if (ap_pass_brigade(js->r->output_filters, js->bb) != APR_SUCCESS) {
        js->failed = 1;
    }
    apr_brigade_cleanup(js->bb);
    js->sent += js->len;
    js->len = 0;
}

void pl_jstream_reserve(pl_jstream_t *js, apr_size_t n)
{
    apr_size_t cap;
    char *ns;

    if (js->len + n + 1 <= js->cap) {
        return;
    }
    if (js->r) {
        send_buffer(js);
        if (n + 1 <= js->cap) {
            return;
        }
    }
    /* the first size asked for is taken as it is; beyond it, doubled */
    cap = js->cap ? js->cap * 2 : n + 1;
    while (cap < js->len + n + 1) {
        cap *= 2;
    }
    if (js->r) { /* empty now: a larger buffer of the same kind */
        apr_bucket_free(js->s);
        js->s = apr_bucket_alloc(cap, js->bb->bucket_alloc);
        js->cap = cap;
        return;
    }
    ns = apr_palloc(js->p, cap);
    if (js->len) {
        memcpy(ns, js->s, js->len);
    }
    js->s = ns;
    js->cap = cap;
}

/* Names in candidate answers are ASCII identifiers and uuids: copied at
 * once; anything else is written by json.dumps' rules (pl_py_json_str),
 * the same as every other answer's strings. */
void pl_jstream_str(pl_jstream_t *js, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    apr_size_t n = strlen(s), i;
    apr_size_t qlen;
    const char *q;

    for (i = 0; i < n; i++) {
        if (u[i] < 0x20 || u[i] > 0x7e || u[i] == '"' || u[i] == '\\') {
            break;
        }
    }
    if (i == n) {
        pl_jstream_reserve(js, n + 2);
        js->s[js->len++] = '"';
        memcpy(js->s + js->len, s, n);
        js->len += n;
        js->s[js->len++] = '"';
        return;
    }
    q = pl_py_json_str(js->p, s, n, &qlen);
    pl_jstream_raw(js, q, qlen);
}

/* Digits written backwards into a small buffer: a candidate answer has
 * tens of thousands of numbers, and apr_snprintf's formatter cost more
 * than the rest of the writing. */
void pl_jstream_int(pl_jstream_t *js, apr_int64_t v)
{
    char num[24], *end = num + sizeof(num), *d = end;
    apr_uint64_t u = v < 0 ? 0 - (apr_uint64_t)v : (apr_uint64_t)v;

    do {
        *--d = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) {
        *--d = '-';
    }
    pl_jstream_raw(js, d, (apr_size_t)(end - d));
}

apr_status_t pl_jstream_finish(pl_jstream_t *js)
{
    if (js->r == NULL) {
        return APR_SUCCESS;
    }
    /* an answer that fit in one buffer keeps its Content-Length; httpd
     * ends the body (EOS) once the handler returns */
    if (js->sent == 0 && !js->failed) {
        ap_set_content_length(js->r, (apr_off_t)js->len);
    }
    send_buffer(js);
    apr_bucket_free(js->s);
    js->s = NULL;
    js->cap = 0;
    return js->failed ? APR_EGENERAL : APR_SUCCESS;
}
