/* Licensed under the Apache License, Version 2.0.
 *
 * test_mv.c: pl_mv_parse() and pl_mv_str(): which microversion a request
 * gets from its OpenStack-API-Version header(s), and the exact 400 / 406
 * texts placement 8.0.0 gives for bad ones.
 */
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_strings.h>

#include "pl_mv.h"
#include "tap.h"

#define E400 "Invalid microversion: invalid version string: "
#define E406 "Invalid microversion: Unacceptable version header: "
#define BADINT "invalid literal for int() with base 10: "
#define NOMINOR                                        \
    "Version.__new__() missing 1 required positional " \
    "argument: 'minor'"

typedef struct {
    const char *header; /* bytes as sent; NULL: no header */
    apr_status_t rv;
    int mv;          /* when rv == APR_SUCCESS */
    const char *err; /* otherwise */
} mv_case_t;

static const mv_case_t mv_cases[] = {
    /* absent, empty, or no placement entry: the minimum */
    { NULL, APR_SUCCESS, PL_MV(1, 0), NULL },
    { "", APR_SUCCESS, PL_MV(1, 0), NULL },
    { "   ", APR_SUCCESS, PL_MV(1, 0), NULL },
    { ",", APR_SUCCESS, PL_MV(1, 0), NULL },
    { "placement", APR_SUCCESS, PL_MV(1, 0), NULL },
    { "placement,", APR_SUCCESS, PL_MV(1, 0), NULL },
    { "compute 2.1", APR_SUCCESS, PL_MV(1, 0), NULL },
    { "placementx 1.5", APR_SUCCESS, PL_MV(1, 0), NULL },
    { "xplacement 1.5", APR_SUCCESS, PL_MV(1, 0), NULL },
    { "placement \x85", APR_SUCCESS, PL_MV(1, 0), NULL },

    /* good versions */
    { "placement 1.5", APR_SUCCESS, PL_MV(1, 5), NULL },
    { "placement 1.0", APR_SUCCESS, PL_MV(1, 0), NULL },
    { "placement 1.39", APR_SUCCESS, PL_MV(1, 39), NULL },
    { "placement latest", APR_SUCCESS, PL_MV(1, 39), NULL },
    { "placement latest ", APR_SUCCESS, PL_MV(1, 39), NULL },
    { "PLACEMENT 1.39", APR_SUCCESS, PL_MV(1, 39), NULL },
    { "PlAcEmEnT 1.7", APR_SUCCESS, PL_MV(1, 7), NULL },
    { "placement\t1.5", APR_SUCCESS, PL_MV(1, 5), NULL },
    { "placement  1.5 ", APR_SUCCESS, PL_MV(1, 5), NULL },

    /* several entries: the last placement one wins */
    { "compute 2.1, placement 1.20", APR_SUCCESS, PL_MV(1, 20), NULL },
    { "placement 1.20, compute 2.1", APR_SUCCESS, PL_MV(1, 20), NULL },
    { "placement 1.2, placement 1.30", APR_SUCCESS, PL_MV(1, 30), NULL },
    { "placement latest, placement 1.3", APR_SUCCESS, PL_MV(1, 3), NULL },
    { "placement pony, placement 1.2", APR_SUCCESS, PL_MV(1, 2), NULL },
    { "placement 1.5 , ", APR_SUCCESS, PL_MV(1, 5), NULL },
    { " , placement 1.6 ,", APR_SUCCESS, PL_MV(1, 6), NULL },
    { "placement 1.2,placement pony", APR_EINVAL, 0,
      E400 "pony; " BADINT "'pony'" },

    /* what Python's int() tolerates */
    { "placement 1.05", APR_SUCCESS, PL_MV(1, 5), NULL },
    { "placement 01.039", APR_SUCCESS, PL_MV(1, 39), NULL },
    { "placement 1.+5", APR_SUCCESS, PL_MV(1, 5), NULL },
    { "placement 1.-0", APR_SUCCESS, PL_MV(1, 0), NULL },
    { "placement 1.1_0", APR_SUCCESS, PL_MV(1, 10), NULL },
    { "placement 1. 5", APR_SUCCESS, PL_MV(1, 5), NULL },
    { "placement 1 .5", APR_SUCCESS, PL_MV(1, 5), NULL },
    { "placement 1.\x0b"
      "2",
      APR_SUCCESS, PL_MV(1, 2), NULL },
    { "placement 1.2\x0c", APR_SUCCESS, PL_MV(1, 2), NULL },

    /* latin-1 whitespace: NEL, NBSP, the C0 separators */
    { "placement \x85"
      "1.5",
      APR_SUCCESS, PL_MV(1, 5), NULL },
    { "placement\xa0"
      "1.5",
      APR_SUCCESS, PL_MV(1, 5), NULL },
    { "placement 1.5\xa0", APR_SUCCESS, PL_MV(1, 5), NULL },
    { "placement\x1c"
      "1.4",
      APR_SUCCESS, PL_MV(1, 4), NULL },
    { "\xa0placement 1.8\x85", APR_SUCCESS, PL_MV(1, 8), NULL },

    /* out of range: 406 */
    { "placement 1.40", PL_ENOTACCEPTABLE, 0, E406 "1.40" },
    { "placement 1.99", PL_ENOTACCEPTABLE, 0, E406 "1.99" },
    { "placement 2.0", PL_ENOTACCEPTABLE, 0, E406 "2.0" },
    { "placement 0.9", PL_ENOTACCEPTABLE, 0, E406 "0.9" },
    { "placement 0.5", PL_ENOTACCEPTABLE, 0, E406 "0.5" },
    { "placement -1.5", PL_ENOTACCEPTABLE, 0, E406 "-1.5" },
    { "placement 1.-1", PL_ENOTACCEPTABLE, 0, E406 "1.-1" },
    { "placement 1_0.1", PL_ENOTACCEPTABLE, 0, E406 "1_0.1" },
    { "placement 1.99999999999999999999999", PL_ENOTACCEPTABLE, 0,
      E406 "1.99999999999999999999999" },
    { "placement 99999999999999999999.1", PL_ENOTACCEPTABLE, 0,
      E406 "99999999999999999999.1" },
    { "placement 1.4294967297", PL_ENOTACCEPTABLE, 0, E406 "1.4294967297" },
    { "placement 4294967297.5", PL_ENOTACCEPTABLE, 0, E406 "4294967297.5" },

    /* malformed: 400 */
    { "placement pony.horse", APR_EINVAL, 0,
      E400 "pony.horse; " BADINT "'pony'" },
    { "placement 1.2.3", APR_EINVAL, 0, E400 "1.2.3; " BADINT "'2.3'" },
    { "placement 1.39.0", APR_EINVAL, 0, E400 "1.39.0; " BADINT "'39.0'" },
    { "placement 1", APR_EINVAL, 0, E400 "1; " NOMINOR },
    { "placement 1,5", APR_EINVAL, 0, E400 "1; " NOMINOR },
    { "placement 1.", APR_EINVAL, 0, E400 "1.; " BADINT "''" },
    { "placement .5", APR_EINVAL, 0, E400 ".5; " BADINT "''" },
    { "placement 1._1", APR_EINVAL, 0, E400 "1._1; " BADINT "'_1'" },
    { "placement 1.1__0", APR_EINVAL, 0, E400 "1.1__0; " BADINT "'1__0'" },
    { "placement 1.1_", APR_EINVAL, 0, E400 "1.1_; " BADINT "'1_'" },
    { "placement 1.5 extra", APR_EINVAL, 0,
      E400 "1.5 extra; " BADINT "'5 extra'" },
    { "placement LATEST", APR_EINVAL, 0, E400 "LATEST; " BADINT "'LATEST'" },
    { "placement 1.0x1", APR_EINVAL, 0, E400 "1.0x1; " BADINT "'0x1'" },
    { "placement 1.1e1", APR_EINVAL, 0, E400 "1.1e1; " BADINT "'1e1'" },

    /* the repr() in int()'s message: quotes and backslashes */
    { "placement 1.a'b", APR_EINVAL, 0, E400 "1.a'b; " BADINT "\"a'b\"" },
    { "placement 1.\"", APR_EINVAL, 0, E400 "1.\"; " BADINT "'\"'" },
    { "placement 1.'\"", APR_EINVAL, 0, E400 "1.'\"; " BADINT "'\\'\"'" },
    { "placement 1.\\", APR_EINVAL, 0, E400 "1.\\; " BADINT "'\\\\'" },
    { "placement 1.\tx", APR_EINVAL, 0, E400 "1.\tx; " BADINT "'\\tx'" },

    /* non-ASCII bytes are latin-1 characters, echoed in UTF-8 */
    { "placement 1.\xe9", APR_EINVAL, 0,
      E400 "1.\xc3\xa9; " BADINT "'\xc3\xa9'" },
    { "placement 1.\xc5", APR_EINVAL, 0,
      E400 "1.\xc3\x85; " BADINT "'\xc3\x85'" },
    { "placement \xe9.\xad", APR_EINVAL, 0,
      E400 "\xc3\xa9.\xc2\xad; " BADINT "'\xc3\xa9'" },
    { "placement 1.\x7f\x80\x9f", APR_EINVAL, 0,
      E400 "1.\x7f\xc2\x80\xc2\x9f; " BADINT "'\\x7f\\x80\\x9f'" },
    { "placement \xc3\xa9.1", APR_EINVAL, 0,
      E400 "\xc3\x83\xc2\xa9.1; " BADINT "'\xc3\x83\xc2\xa9'" },
    { "placement 1.\x1f", APR_EINVAL, 0, E400 "1.; " BADINT "''" },
    { "placement 1.5\xa0x", APR_EINVAL, 0,
      E400 "1.5\xc2\xa0x; " BADINT "'5\\xa0x'" },
};

static void test_table(apr_pool_t *p)
{
    size_t i;

    for (i = 0; i < sizeof(mv_cases) / sizeof(mv_cases[0]); i++) {
        const mv_case_t *c = &mv_cases[i];
        const char *err = NULL;
        int mv = -1;
        apr_status_t rv = pl_mv_parse(p, c->header, &mv, &err);
        const char *name = c->header ? c->header : "(no header)";

        TAP_IS_INT(rv, c->rv, "status of [%s]", name);
        if (c->rv == APR_SUCCESS) {
            TAP_IS_INT(mv, c->mv, "version of [%s]", name);
        }
        else {
            TAP_IS_STR(err, c->err, "text of [%s]", name);
        }
    }
}

/* Python's int() converts at most 4300 digits; beyond, a ValueError of
 * its own. The repr in "invalid literal" messages stops at 200 chars. */
static void test_long(apr_pool_t *p)
{
    char *zeros4300 = apr_palloc(p, 4301), *zeros4301 = apr_palloc(p, 4302);
    char *nines = apr_palloc(p, 5001), *junk = apr_palloc(p, 301);
    char *underscored = apr_palloc(p, 4602);
    const char *err = NULL, *h, *exp;
    int mv = -1, i;
    apr_status_t rv;

    memset(zeros4300, '0', 4300);
    zeros4300[4300] = '\0';
    memset(zeros4301, '0', 4301);
    zeros4301[4301] = '\0';
    memset(nines, '9', 5000);
    nines[5000] = '\0';
    memset(junk, 'y', 300);
    junk[300] = '\0';
    for (i = 0; i < 2300; i++) {
        underscored[2 * i] = '1';
        underscored[2 * i + 1] = '_';
    }
    underscored[4600] = '1';
    underscored[4601] = '\0';

    h = apr_pstrcat(p, "placement 1.", zeros4300, NULL);
    rv = pl_mv_parse(p, h, &mv, &err);
    TAP_IS_INT(rv, APR_SUCCESS, "4300 zeros are 0");
    TAP_IS_INT(mv, PL_MV(1, 0), "4300 zeros: 1.0");

    h = apr_pstrcat(p, "placement 1.", zeros4301, NULL);
    rv = pl_mv_parse(p, h, &mv, &err);
    TAP_IS_INT(rv, APR_EINVAL, "4301 digits: 400");
    exp = apr_pstrcat(p, E400, "1.", zeros4301,
                      "; Exceeds the limit (4300 "
                      "digits) for integer string conversion: value has 4301 "
                      "digits; use sys.set_int_max_str_digits() to increase "
                      "the limit",
                      NULL);
    TAP_IS_STR(err, exp, "4301 digits: Python's limit text");

    h = apr_pstrcat(p, "placement 1.", zeros4301, "x", NULL);
    rv = pl_mv_parse(p, h, &mv, &err);
    TAP_IS_INT(rv, APR_EINVAL, "4301 digits then junk: 400");
    TAP_OK(err && strstr(err, "value has 4301 digits;"),
           "4301 digits then junk: the limit wins over the junk");

    h = apr_pstrcat(p, "placement 1.", nines, NULL);
    rv = pl_mv_parse(p, h, &mv, &err);
    TAP_IS_INT(rv, APR_EINVAL, "5000 nines: 400");
    TAP_OK(err && strstr(err, "value has 5000 digits;"),
           "5000 nines: digits counted");

    /* 2301 digits separated by '_': under the limit, a huge number */
    h = apr_pstrcat(p, "placement 1.", underscored, NULL);
    rv = pl_mv_parse(p, h, &mv, &err);
    TAP_IS_INT(rv, PL_ENOTACCEPTABLE, "2301 digits with '_': 406");
    TAP_IS_STR(err, apr_pstrcat(p, E406, "1.", underscored, NULL),
               "2301 digits with '_': the whole version echoed");

    h = apr_pstrcat(p, "placement x", junk, NULL);
    rv = pl_mv_parse(p, h, &mv, &err);
    TAP_IS_INT(rv, APR_EINVAL, "300 chars of junk: 400");
    exp = apr_pstrcat(p, E400, "x", junk, "; " BADINT "'x",
                      apr_pstrndup(p, junk, 198), NULL);
    TAP_IS_STR(err, exp, "repr cut at 200 characters");
}

static void test_str(apr_pool_t *p)
{
    TAP_IS_STR(pl_mv_str(p, PL_MV(1, 0)), "1.0", "str 1.0");
    TAP_IS_STR(pl_mv_str(p, PL_MV(1, 9)), "1.9", "str 1.9");
    TAP_IS_STR(pl_mv_str(p, PL_MV(1, 10)), "1.10", "str 1.10");
    TAP_IS_STR(pl_mv_str(p, PL_MV_MAX), "1.39", "str max");
    TAP_IS_INT(PL_MV(1, 10) > PL_MV(1, 9), 1, "1.10 sorts after 1.9");
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    apr_pool_tag(p, "test_mv");

    test_table(p);
    test_long(p);
    test_str(p);

    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
