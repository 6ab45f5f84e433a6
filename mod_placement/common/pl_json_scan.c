/* Licensed under the Apache License, Version 2.0.
 *
 * pl_json_scan.c: one pass over a JSON text before json-c builds it:
 * what building it would cost, and the escapes refused (pure: APR only).
 * The request body's reader (httpd/pl_req_body.c) refuses a body whose
 * cost is too high for its size; docs/directives.md (PlacementMaxBodySize)
 * and docs/reliability.md state the bound.
 */
#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "pl_json_scan.h"

/* What json-c 0.16 (Debian 12, x86-64, glibc) holds per thing it builds,
 * in malloc chunks with their headers, at the peak of a parse:
 * bench/json-cost.c measures each shape of body at 1 and 8 MB, by what
 * malloc handed out and by the RSS grown, and these are the figures
 * with a margin (measured -> priced):
 *
 *   an object, its 16-slot hash table included       790 -> 840
 *   an array (see below)                             150-256 -> 384
 *   an array's slot per element (doubling, realloc)  16-21 -> 24
 *   a key: its copy (32 up to 23 bytes)              32 -> 48
 *   a string value: its object (+ its bytes)         80 -> 96
 *   an integer                                       64 -> 72
 *   a double: its object and a copy of its text      96 -> 104
 *   true, false                                      64 -> 72
 *   null (no object: the slot alone)                 0 -> 0
 *
 * json-c makes an array with room for 32 values (64 + 48 + 272 bytes)
 * and shrinks it at its "]"; the piece freed is too small for the next
 * array's room, so arrays nested in arrays leave it unused (the RSS
 * grows 256 bytes an array at 8 levels and more): an array is priced as
 * made, 384.
 *
 * Beyond those: an object of over 11 keys grows its hash table (40
 * bytes a slot, doubled when two thirds full, the old one freed after),
 * priced exactly from its key count; the bytes of strings, keys and
 * doubles' texts are copied once (priced as the text's length again);
 * the tokener gathers each string or number in a buffer that doubles
 * (twice the longest priced). */
#define COST_OBJECT 840
#define COST_ARRAY 384
#define COST_SLOT 24
#define COST_KEY 48
#define COST_STRING 96
#define COST_INT 72
#define COST_DOUBLE 104
#define COST_LITERAL 72

/* json-c's linkhash: a new object's table has 16 slots of 40 bytes (in
 * COST_OBJECT); before an insertion finds count >= size * 0.66 the
 * table doubles. */
#define TABLE_SLOTS 16
#define TABLE_SLOT_BYTES 40

/* A container being scanned: its kind and how many members so far */
typedef struct {
    char kind; /* '{' or '[' */
    apr_uint64_t members;
} level_t;

typedef struct {
    pl_json_scan_t *out;
    level_t *levels;
    int max_depth;
    apr_uint64_t depth;    /* may pass max_depth: then nothing is priced */
    apr_uint64_t longest;  /* the longest string or number, in bytes */
    apr_uint64_t resizing; /* the largest old table freed by a resize */
} scanner_t;

static int hex4(const char *s, const char *end, unsigned *pv)
{
    unsigned v = 0;
    int i;

    if (end - s < 4) {
        return 0;
    }
    for (i = 0; i < 4; i++) {
        int c = (unsigned char)s[i];

        if (!apr_isxdigit(c)) {
            return 0;
        }
        v = v * 16 +
            (unsigned)(apr_isdigit(c) ? c - '0' : apr_tolower(c) - 'a' + 10);
    }
    *pv = v;
    return 1;
}

/* The escape at at (just after its backslash): its length, or 0 when it
 * is one the body may not have (why in *prefused). \u0000 would end a C
 * string (a name cut short); a surrogate not in a pair cannot be stored
 * as UTF-8 (json-c would make it U+FFFD, Python keeps it, the databases
 * refuse it). */
static apr_size_t scan_escape(apr_pool_t *p, const char *at, const char *end,
                              const char **prefused)
{
    unsigned v, w;

    if (at == end || *at != 'u' || !hex4(at + 1, end, &v)) {
        return 1; /* json-c judges the others */
    }
    if (v == 0) {
        *prefused = "\\u0000 is not allowed in strings";
        return 0;
    }
    if (v >= 0xd800 && v <= 0xdbff && end - at >= 11 && at[5] == '\\' &&
        at[6] == 'u' && hex4(at + 7, end, &w) && w >= 0xdc00 && w <= 0xdfff) {
        return 11; /* a pair: one character beyond U+FFFF */
    }
    if (v >= 0xd800 && v <= 0xdfff) {
        *prefused = apr_psprintf(p,
                                 "\\u%04x is not allowed in strings (a "
                                 "surrogate alone is no character)",
                                 v);
        return 0;
    }
    return 5;
}

/* The container values are being added to, or NULL at the top or past
 * the depth json-c goes to. */
static level_t *open_level(scanner_t *s)
{
    return s->depth >= 1 && s->depth <= (apr_uint64_t)s->max_depth
               ? &s->levels[s->depth - 1]
               : NULL;
}

/* Whether the value that starts here is built: json-c parses a value
 * inside n containers at level n of its stack, which has max_depth
 * levels. A value in an array takes a slot. */
static int value_built(scanner_t *s)
{
    level_t *l = open_level(s);

    if (s->depth >= (apr_uint64_t)s->max_depth) {
        return 0;
    }
    if (l && l->kind == '[') {
        l->members++;
        s->out->cost += COST_SLOT;
    }
    return 1;
}

/* The hash table of an object of n keys beyond the 16 slots it starts
 * with; the old table of its last resize is held with the new one for a
 * moment (the largest such moment counts once). */
static void price_table(scanner_t *s, apr_uint64_t n)
{
    apr_uint64_t slots = TABLE_SLOTS;

    while (n > 0 && (n - 1) * 100 >= slots * 66) {
        slots *= 2;
    }
    if (slots > TABLE_SLOTS) {
        s->out->cost += (slots - TABLE_SLOTS) * TABLE_SLOT_BYTES;
        if (slots / 2 * TABLE_SLOT_BYTES > s->resizing) {
            s->resizing = slots / 2 * TABLE_SLOT_BYTES;
        }
    }
}

static void open_container(scanner_t *s, char kind)
{
    if (value_built(s)) {
        if (kind == '{') {
            s->out->objects++;
            s->out->cost += COST_OBJECT;
        }
        else {
            s->out->arrays++;
            s->out->cost += COST_ARRAY;
        }
    }
    s->depth++;
    if (s->depth <= (apr_uint64_t)s->max_depth) {
        s->levels[s->depth - 1].kind = kind;
        s->levels[s->depth - 1].members = 0;
    }
}

static void close_container(scanner_t *s)
{
    level_t *l = open_level(s);

    if (l && l->kind == '{') {
        price_table(s, l->members);
    }
    if (s->depth > 0) {
        s->depth--;
    }
}

/* A string starts with quote: a key where an object expects one (after
 * "{" or ","), else a value. json-c takes a key in single quotes even
 * when strict (a value it refuses): then whether one starts, 0 if not. */
static int open_string(scanner_t *s, char prev, char quote)
{
    level_t *l = open_level(s);

    if (l && l->kind == '{' && (prev == '{' || prev == ',')) {
        l->members++;
        s->out->keys++;
        s->out->quoted_keys += quote == '\'';
        s->out->cost += COST_KEY;
    }
    else if (quote == '\'') {
        return 0;
    }
    else if (value_built(s)) {
        s->out->strings++;
        s->out->cost += COST_STRING;
    }
    return 1;
}

/* A scalar starts with c where a value may start (json-c reads NaN and
 * Infinity as numbers: the reader refuses them once parsed) */
static void open_scalar(scanner_t *s, char c)
{
    if ((c == '-' || apr_isdigit(c) || c == 'N' || c == 'I') &&
        value_built(s)) {
        s->out->numbers++;
        s->out->cost += COST_INT;
    }
    else if ((c == 't' || c == 'f' || c == 'n') && value_built(s)) {
        s->out->literals++;
        s->out->cost += c == 'n' ? 0 : COST_LITERAL;
    }
}

void pl_json_scan(apr_pool_t *p, const char *buf, apr_size_t len, int max_depth,
                  pl_json_scan_t *scan)
{
    const char *at = buf, *end = buf + len, *token = NULL;
    scanner_t s;
    char prev = '\0';   /* the last byte outside strings and blanks */
    char in_string = 0; /* the quote of the string the scan is in */
    int in_number = 0, is_double = 0;

    memset(scan, 0, sizeof(*scan));
    memset(&s, 0, sizeof(s));
    s.out = scan;
    s.max_depth = max_depth > 0 ? max_depth : 1;
    s.levels = apr_palloc(p, (apr_size_t)s.max_depth * sizeof(level_t));
    while (at < end) {
        const char *here = at;
        char c = *at++;

        if (in_string) {
            if (c == in_string) {
                in_string = 0;
                if ((apr_uint64_t)(here - token) > s.longest) {
                    s.longest = (apr_uint64_t)(here - token);
                }
            }
            else if (c == '\\') {
                apr_size_t n = scan_escape(p, at, end, &scan->refused);

                if (n == 0) {
                    return;
                }
                at += n > (apr_size_t)(end - at) ? (apr_size_t)(end - at) : n;
            }
            continue;
        }
        if (in_number) {
            /* a double has more than digits and a sign: ".", "e",
             * "NaN", "Infinity" */
            if (apr_isalnum(c) || c == '-' || c == '+' || c == '.') {
                if (!apr_isdigit(c) && c != '-' && !is_double) {
                    is_double = 1;
                    scan->doubles++;
                    scan->cost += COST_DOUBLE - COST_INT;
                }
                continue;
            }
            in_number = 0;
            if ((apr_uint64_t)(here - token) > s.longest) {
                s.longest = (apr_uint64_t)(here - token);
            }
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            continue;
        }
        switch (c) {
        case '"':
        case '\'':
            if (open_string(&s, prev, c)) {
                in_string = c;
                token = at;
            }
            break;
        case '{':
        case '[':
            open_container(&s, c);
            break;
        case '}':
        case ']':
            close_container(&s);
            break;
        default:
            if (prev == '\0' || prev == '[' || prev == ',' || prev == ':') {
                apr_uint64_t numbers = scan->numbers;

                open_scalar(&s, c);
                if (scan->numbers > numbers) {
                    in_number = 1;
                    is_double = 0;
                    token = here;
                    at = here; /* "N" and "I" start a double */
                    prev = c;
                    continue;
                }
            }
            break;
        }
        prev = c;
    }
    if ((in_string || in_number) && (apr_uint64_t)(end - token) > s.longest) {
        s.longest = (apr_uint64_t)(end - token);
    }
    /* the text itself and a copy of its strings' bytes, the tokener's
     * buffer, and the largest table resize */
    scan->cost += 2 * (apr_uint64_t)len + 2 * s.longest + s.resizing;
}
