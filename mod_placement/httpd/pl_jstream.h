/* Licensed under the Apache License, Version 2.0.
 *
 * pl_jstream.h: JSON text written into a buffer, for answers too large to
 * build as json-c objects. Two modes:
 *   - text: the buffer grows (doubling) and holds the whole text at the
 *     end (small pieces kept for later, such as quoted uuids);
 *   - response: the buffer has a fixed size and goes to the client each
 *     time it is full, so an answer of megabytes costs a buffer or two of
 *     the connection's bucket allocator, recycled, instead of the whole
 *     text (and the kernel does not have to map, fault in and unmap the
 *     pages of a fresh large buffer). pl_jstream_finish frees the last.
 * The bytes written are the same in both modes.
 */
#ifndef PL_JSTREAM_H
#define PL_JSTREAM_H

#include <string.h>
#include <apr_pools.h>
#include <httpd.h>

typedef struct pl_jstream_copy_t pl_jstream_copy_t;

typedef struct pl_jstream_t {
    apr_pool_t *p;
    char *s;
    apr_size_t len, cap;
    request_rec *r; /* response mode: where full buffers go */
    apr_bucket_brigade *bb;
    apr_size_t sent;         /* bytes handed to the output filters */
    int failed;              /* the client went away: write nothing */
    pl_jstream_copy_t *copy; /* response mode: a copy of what is sent */
} pl_jstream_t;

/** Text mode: the first size asked for is taken as the estimate of the
 *  whole text (0: grow as needed). */
void pl_jstream_text(pl_jstream_t *js, apr_pool_t *p, apr_size_t estimate);

/** Response mode: buffers of size bytes passed to r's output filters. */
void pl_jstream_response(pl_jstream_t *js, request_rec *r, apr_pool_t *p,
                         apr_size_t size);

/** Response mode: also keep a copy of the text sent, in pages of its
 *  own (pl_pages.h), as long as it is at most max bytes. */
void pl_jstream_copy(pl_jstream_t *js, apr_size_t max);

/** After pl_jstream_finish: the copy and its length *len, or NULL when
 *  the text was longer than max, the client went away or memory ran out.
 *  The caller gives it back with pl_pages_free(copy, *len). Untaken, it
 *  is freed with js->p. */
char *pl_jstream_take_copy(pl_jstream_t *js, apr_size_t *len);

/** Response mode: what is left in the buffer. APR_SUCCESS, or
 *  APR_EGENERAL when the output filters failed (the client went away). */
apr_status_t pl_jstream_finish(pl_jstream_t *js);

/** Room for n more bytes in js->s (response mode: after sending what is
 *  there, when it would not fit). */
void pl_jstream_reserve(pl_jstream_t *js, apr_size_t n);

/** n bytes as they are. Inline: a candidate answer is made of tens of
 *  thousands of short pieces, most of them literals whose copy the
 *  compiler then unrolls (the calls took a tenth of writing one). */
static inline void pl_jstream_raw(pl_jstream_t *js, const char *s, apr_size_t n)
{
    if (js->len + n + 1 > js->cap) {
        pl_jstream_reserve(js, n);
    }
    memcpy(js->s + js->len, s, n);
    js->len += n;
}

#define PL_JS_LIT(js, lit) pl_jstream_raw((js), (lit), sizeof(lit) - 1)

/** A JSON string: quotes, backslashes and control characters escaped. */
void pl_jstream_str(pl_jstream_t *js, const char *s);

void pl_jstream_int(pl_jstream_t *js, apr_int64_t v);

#endif /* PL_JSTREAM_H */
