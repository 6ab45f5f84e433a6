/* Licensed under the Apache License, Version 2.0.
 *
 * test_json_scan.c: pl_json_scan.c, the pass over a request body before
 * json-c builds it: what it counts (values by kind, keys apart from
 * strings, nothing json-c would not build), the escapes it refuses, and
 * the price it gives each shape (bench/json-cost.c measures json-c's
 * own; the figures here are the price's, per docs/reliability.md).
 */
#include <stdlib.h>
#include <string.h>
#include <apr_general.h>
#include <apr_strings.h>

#include "tap.h"
#include "pl_json_scan.h"

static pl_json_scan_t scan_of(apr_pool_t *p, const char *text)
{
    pl_json_scan_t s;

    pl_json_scan(p, text, strlen(text), 64, &s);
    return s;
}

static void test_counts(apr_pool_t *p)
{
    pl_json_scan_t s = scan_of(
        p, "{\"a\": [1, -2.5e3, \"x\", true, false, null, {}, []],\n"
           " \"b:{[\": \"y,\\\"}\", \"c\": NaN, \"d\": -Infinity}");

    TAP_OK(s.refused == NULL, "counts: nothing refused");
    TAP_IS_INT(s.objects, 2, "counts: objects");
    TAP_IS_INT(s.arrays, 2, "counts: arrays");
    TAP_IS_INT(s.keys, 4, "counts: keys, brackets inside one ignored");
    TAP_IS_INT(s.strings, 2, "counts: strings, an escaped quote inside one");
    TAP_IS_INT(s.numbers, 4, "counts: numbers, NaN and -Infinity among them");
    TAP_IS_INT(s.doubles, 3, "counts: doubles: -2.5e3, NaN, -Infinity");
    TAP_IS_INT(s.literals, 3, "counts: true, false, null");

    /* json-c takes keys in single quotes, even strict */
    s = scan_of(p, "{'\"a': \"b'\", 'c': 'd'}");
    TAP_IS_INT(s.keys, 2, "counts: keys in single quotes");
    TAP_IS_INT(s.quoted_keys, 2, "counts: ... counted apart");
    TAP_IS_INT(s.strings, 1, "counts: ... a value in them is no string");

    s = scan_of(p, "\"a\"");
    TAP_IS_INT(s.strings, 1, "counts: a string alone is a value");
    s = scan_of(p, "[\"a\", \"b\"]");
    TAP_IS_INT(s.keys, 0, "counts: strings in a list are no keys");
    TAP_IS_INT(s.strings, 2, "counts: ... but values");
    /* not JSON: at most one value where a value may start */
    s = scan_of(p, "[1 2 3 truefalse]");
    TAP_IS_INT(s.numbers, 1, "counts: no separator, no second value");
    TAP_IS_INT(s.literals, 0, "counts: ... nor a literal");
}

static void test_depth(apr_pool_t *p)
{
    pl_json_scan_t s;
    char *deep = apr_palloc(p, 200001);

    pl_json_scan(p, "[[[1, {\"a\": 2}]], 3]", 20, 2, &s);
    TAP_IS_INT(s.arrays, 2, "depth: lists up to the depth");
    TAP_IS_INT(s.numbers, 1, "depth: only the value json-c builds");
    TAP_IS_INT(s.objects + s.keys, 0, "depth: nothing deeper");

    memset(deep, '[', 100000);
    memset(deep + 100000, ']', 100000);
    deep[200000] = '\0';
    pl_json_scan(p, deep, 200000, 64, &s);
    TAP_IS_INT(s.arrays, 64, "depth: 100,000 lists: the 64 json-c builds");
    TAP_OK(s.cost < 1024 * 1024, "depth: ... priced under 1 MB (%lu)",
           (unsigned long)s.cost);
}

static void test_escapes(apr_pool_t *p)
{
    pl_json_scan_t s = scan_of(p, "[\"a\\u0000b\"]");

    TAP_IS_STR(s.refused, "\\u0000 is not allowed in strings",
               "escapes: NUL refused");
    s = scan_of(p, "[\"\\ud800x\"]");
    TAP_IS_STR(s.refused,
               "\\ud800 is not allowed in strings (a surrogate alone "
               "is no character)",
               "escapes: a high surrogate alone refused");
    s = scan_of(p, "[\"\\udc00\"]");
    TAP_OK(s.refused != NULL, "escapes: a low surrogate alone refused");
    s = scan_of(p, "[\"\\ud83d\\ude00\", \"\\u00e9\\n\\\\\"]");
    TAP_OK(s.refused == NULL, "escapes: a pair, others taken");
    TAP_IS_INT(s.strings, 2, "escapes: ... both strings counted");
    s = scan_of(p, "[\"\\u00");
    TAP_OK(s.refused == NULL, "escapes: cut short: json-c's to judge");
}

/* cost per byte of n copies of elem in a list */
static double per_byte(apr_pool_t *p, const char *elem, int n)
{
    apr_size_t el = strlen(elem), len = 0;
    char *text = apr_palloc(p, (el + 1) * (apr_size_t)n + 2);
    pl_json_scan_t s;
    int i;

    text[len++] = '[';
    for (i = 0; i < n; i++) {
        if (i) {
            text[len++] = ',';
        }
        memcpy(text + len, elem, el);
        len += el;
    }
    text[len++] = ']';
    pl_json_scan(p, text, len, 64, &s);
    return (double)s.cost / (double)len;
}

static void test_prices(apr_pool_t *p)
{
    pl_json_scan_t s;
    char *obj;
    apr_uint64_t c11 = 0, c12 = 0;
    int i, n;

    /* the prices of json-c's pieces: an array 384 and a slot 24, an int
     * 72, the text twice and the longest token twice */
    TAP_IS_INT(scan_of(p, "[]").cost, 384 + 2 * 2, "price: []");
    TAP_IS_INT(scan_of(p, "[1]").cost, 384 + 24 + 72 + 2 * 3 + 2 * 1,
               "price: [1]");
    TAP_IS_INT(scan_of(p, "{}").cost, 840 + 2 * 2, "price: {}");
    TAP_IS_INT(scan_of(p, "{\"ab\":null}").cost, 840 + 48 + 2 * 11 + 2 * 2,
               "price: a key and null");
    TAP_IS_INT(scan_of(p, "[0.5]").cost, 384 + 24 + 104 + 2 * 5 + 2 * 3,
               "price: a double");
    TAP_IS_INT(scan_of(p, "[\"abc\",true]").cost,
               384 + 2 * 24 + 96 + 72 + 2 * 12 + 2 * 3,
               "price: a string and true");

    /* an object's table doubles at its 12th key */
    for (n = 11; n <= 12; n++) {
        obj = apr_pstrdup(p, "{");
        for (i = 0; i < n; i++) {
            obj = apr_psprintf(p, "%s%s\"%c\":0", obj, i ? "," : "", 'a' + i);
        }
        obj = apr_pstrcat(p, obj, "}", NULL);
        s = scan_of(p, obj);
        if (n == 11) {
            c11 = s.cost;
        }
        else {
            c12 = s.cost;
        }
    }
    TAP_IS_INT(c12 - c11, 48 + 72 + 2 * 6 + 16 * 40 + 32 * 40 / 2,
               "price: the 12th key doubles the table (16 more slots, the "
               "old 16 held meanwhile)");

    /* per body byte, as docs/reliability.md gives them */
    TAP_OK(per_byte(p, "{}", 100000) > 280, "price: [{},...] over 280x");
    TAP_OK(per_byte(p, "[]", 100000) > 130, "price: [[],...] over 130x");
    TAP_OK(per_byte(p, "1", 100000) > 48, "price: [1,...] over 48x");
    TAP_OK(per_byte(p, "\"\"", 100000) < 48, "price: [\"\",...] under 48x");
    TAP_OK(per_byte(p, "\"6f0b3b1c-7f3c-4f7e-9d1e-2c1d6c0f4a11\"", 10000) < 6,
           "price: a list of uuids under 6x");
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    apr_pool_tag(p, "test_json_scan");
    test_counts(p);
    test_depth(p);
    test_escapes(p);
    test_prices(p);
    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
