/* Licensed under the Apache License, Version 2.0.
 *
 * test_str.c: pl_str.c, the string helpers: joining (linear, any count)
 * and the UTF-8 check every path and query parameter goes through.
 */
#include <apr_general.h>
#include <apr_strings.h>

#include "tap.h"
#include "pl_str.h"

static void test_join(apr_pool_t *p)
{
    apr_array_header_t *a = apr_array_make(p, 0, sizeof(const char *));
    char *big;
    int i;

    TAP_IS_STR(pl_str_join(p, a, ", "), "", "join: nothing is empty");
    APR_ARRAY_PUSH(a, const char *) = "A";
    TAP_IS_STR(pl_str_join(p, a, ", "), "A", "join: one has no separator");
    APR_ARRAY_PUSH(a, const char *) = "";
    APR_ARRAY_PUSH(a, const char *) = "CUSTOM_B";
    TAP_IS_STR(pl_str_join(p, a, ", "), "A, , CUSTOM_B",
               "join: empty items keep their place");
    for (i = 0; i < 100000; i++) {
        APR_ARRAY_PUSH(a, const char *) = "X";
    }
    big = pl_str_join(p, a, ", ");
    TAP_IS_INT(strlen(big), strlen("A, , CUSTOM_B") + 100000 * 3,
               "join: 100,000 items in one string");
}

static void test_utf8(void)
{
    static const struct {
        const char *bytes;
        int len;
        int clean;
        const char *name;
    } cases[] = {
        { "", 0, 1, "empty" },
        { "CUSTOM_TRAIT", 12, 1, "ASCII" },
        { "caf\xc3\xa9", 5, 1, "two-byte e acute" },
        { "\xe2\x82\xac", 3, 1, "three-byte euro sign" },
        { "\xf0\x9f\x98\x80", 4, 1, "four-byte emoji" },
        { "\xf4\x8f\xbf\xbf", 4, 1, "U+10FFFF, the last code point" },
        { "a\0b", 3, 0, "embedded NUL" },
        { "\xff", 1, 0, "0xFF never appears" },
        { "\x80", 1, 0, "lone continuation byte" },
        { "\xc3", 1, 0, "cut-short two-byte form" },
        { "\xe2\x82", 2, 0, "cut-short three-byte form" },
        { "\xc0\xaf", 2, 0, "overlong slash" },
        { "\xe0\x80\xaf", 3, 0, "overlong three-byte slash" },
        { "\xed\xa0\x80", 3, 0, "UTF-16 surrogate" },
        { "\xf4\x90\x80\x80", 4, 0, "above U+10FFFF" },
        { "\xc3\x28", 2, 0, "bad continuation" },
    };
    unsigned i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        TAP_IS_INT(pl_str_is_clean_utf8(cases[i].bytes, cases[i].len),
                   cases[i].clean, "utf8: %s", cases[i].name);
    }
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    apr_pool_tag(p, "test_str");
    test_join(p);
    test_utf8();
    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
