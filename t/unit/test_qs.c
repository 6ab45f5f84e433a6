/* Licensed under the Apache License, Version 2.0.
 *
 * test_qs.c: the query string parsers of pl_qs.c, with placement 8.0.0's
 * exact 400 texts, and the Python string helpers behind them.
 */
#include <stdlib.h>
#include <string.h>

#include <apr_general.h>
#include <apr_strings.h>

#include "pl_err.h"
#include "pl_mv.h"
#include "pl_qs.h"
#include "tap.h"

#define U1 "6c8e4f1a-3b2d-4c5e-9f70-1a2b3c4d5e6f"
#define U2 "AABBCCDD-EEFF-0011-2233-445566778899"
#define U3 "aabbccddeeff00112233445566778899"

#define IQS "Invalid query string parameters: "

/* ------------------------------------------------------------------ */
/* helpers                                                             */
/* ------------------------------------------------------------------ */

/* NULL-terminated list of strings -> array of const char * */
static apr_array_header_t *mkvals(apr_pool_t *p, const char *const *v)
{
    apr_array_header_t *arr = apr_array_make(p, 3, sizeof(const char *));

    for (; v && *v; v++) {
        APR_ARRAY_PUSH(arr, const char *) = *v;
    }
    return arr;
}

static const char *render_list(apr_pool_t *p, const apr_array_header_t *a,
                               const char *sep)
{
    const char *s = "";
    int i;

    for (i = 0; i < a->nelts; i++) {
        s = apr_pstrcat(p, s, i ? sep : "", APR_ARRAY_IDX(a, i, const char *),
                        NULL);
    }
    return s;
}

/* array of sets -> "(A|B)(C)" */
static const char *render_sets(apr_pool_t *p, const apr_array_header_t *a)
{
    const char *s = "";
    int i;

    for (i = 0; i < a->nelts; i++) {
        s = apr_pstrcat(
            p, s, "(",
            render_list(p, APR_ARRAY_IDX(a, i, apr_array_header_t *), "|"), ")",
            NULL);
    }
    return s;
}

static const char *render_traits(apr_pool_t *p, const pl_qs_traits_t *t)
{
    return apr_pstrcat(p, "req=", render_list(p, t->required, ","),
                       " any=", render_sets(p, t->any_of),
                       " forb=", render_list(p, t->forbidden, ","), NULL);
}

static const char *render_resources(apr_pool_t *p, const apr_array_header_t *a)
{
    const char *s = "";
    int i;

    for (i = 0; i < a->nelts; i++) {
        const pl_qs_resource_t *r = &APR_ARRAY_IDX(a, i, pl_qs_resource_t);

        s = apr_psprintf(p, "%s%s%s=%" APR_INT64_T_FMT, s, i ? "," : "",
                         r->name, r->amount);
    }
    return s;
}

static char *repeat(apr_pool_t *p, const char *unit, int n)
{
    size_t len = strlen(unit);
    char *s = apr_palloc(p, len * n + 1);
    int i;

    for (i = 0; i < n; i++) {
        memcpy(s + i * len, unit, len);
    }
    s[len * n] = '\0';
    return s;
}

/* ------------------------------------------------------------------ */
/* Python string semantics                                             */
/* ------------------------------------------------------------------ */

static void test_py(apr_pool_t *p)
{
    static const struct {
        const char *in;
        const char *digits; /* NULL: invalid */
        int neg;
    } ints[] = {
        { "0", "0", 0 },
        { "7", "7", 0 },
        { "007", "7", 0 },
        { "-0", "0", 0 },
        { "-000", "0", 0 },
        { "+3", "3", 0 },
        { "-12", "12", 1 },
        { " 4 ", "4", 0 },
        { "\t\n\v\f\r 4", "4", 0 },
        { "\x1c\x1d\x1e\x1f"
          "5",
          "5", 0 },
        { "\xc2\x85"
          "5\xc2\xa0",
          "5", 0 }, /* NEL, NBSP */
        { "\xe3\x80\x80"
          "6\xe2\x80\x83",
          "6", 0 }, /* U+3000, U+2003 */
        { "1_000", "1000", 0 },
        { "1_0_0", "100", 0 },
        { "\xd9\xa3", "3", 0 },                  /* ARABIC-INDIC 3 */
        { "\xef\xbc\x93\xef\xbc\x92", "32", 0 }, /* fullwidth 32 */
        { "\xf0\x9d\x9f\x8e", "0", 0 },          /* U+1D7CE */
        { "99999999999999999999999999", "99999999999999999999999999", 0 },
        { "", NULL, 0 },
        { " ", NULL, 0 },
        { "+", NULL, 0 },
        { "-", NULL, 0 },
        { "+-1", NULL, 0 },
        { "1 2", NULL, 0 },
        { "_1", NULL, 0 },
        { "1_", NULL, 0 },
        { "1__0", NULL, 0 },
        { "- 1", NULL, 0 },
        { "1.5", NULL, 0 },
        { "1e3", NULL, 0 },
        { "0x10", NULL, 0 },
        { "\xc2\xb2", NULL, 0 }, /* superscript 2 */
        { "\xc3\xa9", NULL, 0 },
        { "\xff", NULL, 0 },          /* invalid UTF-8 */
        { "1\xe2\x80\x8b", NULL, 0 }, /* zero width sp */
    };
    const char *digits, *err;
    int neg;
    size_t i;
    char *big;

    for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        apr_status_t rv;

        digits = err = NULL;
        neg = -1;
        rv = pl_py_int(p, ints[i].in, &neg, &digits, &err);
        if (ints[i].digits) {
            TAP_IS_INT(rv, APR_SUCCESS, "int(%s)", ints[i].in);
            TAP_IS_STR(digits, ints[i].digits, "int(%s) digits", ints[i].in);
            TAP_IS_INT(neg, ints[i].neg, "int(%s) sign", ints[i].in);
        }
        else {
            TAP_IS_INT(rv, APR_EINVAL, "int(%s) refused", ints[i].in);
            TAP_OK(err && strncmp(err,
                                  "invalid literal for int() with "
                                  "base 10: ",
                                  40) == 0,
                   "int(%s): ValueError text", ints[i].in);
        }
    }
    pl_py_int(p, "x y", &neg, &digits, &err);
    TAP_IS_STR(err, "invalid literal for int() with base 10: 'x y'",
               "int() error text");
    pl_py_int(p, "\xff", &neg, &digits, &err);
    TAP_IS_STR(err, "invalid literal for int() with base 10: '\\udcff'",
               "invalid UTF-8 shown as surrogateescape");

    big = repeat(p, "0", 4301);
    TAP_IS_INT(pl_py_int(p, big, &neg, &digits, &err), APR_EINVAL,
               "4301 digits refused");
    TAP_IS_STR(err,
               "Exceeds the limit (4300 digits) for integer string "
               "conversion: value has 4301 digits; use "
               "sys.set_int_max_str_digits() to increase the limit",
               "4301 digits: Python's limit text");
    TAP_IS_INT(pl_py_int(p, repeat(p, "1_", 4300), &neg, &digits, &err),
               APR_EINVAL, "trailing '_' after 4300 digits: invalid");
    TAP_OK(strstr(err, "invalid literal") != NULL,
           "trailing '_' is checked before the limit");
    TAP_IS_INT(pl_py_int(p, repeat(p, "9", 4300), &neg, &digits, &err),
               APR_SUCCESS, "4300 digits accepted");
    TAP_IS_INT(strlen(digits), 4300, "4300 digits kept");

    /* repr() */
    TAP_IS_STR(pl_py_repr(p, "abc", 0), "'abc'", "repr plain");
    TAP_IS_STR(pl_py_repr(p, "", 0), "''", "repr empty");
    TAP_IS_STR(pl_py_repr(p, "a'b", 0), "\"a'b\"", "repr with '");
    TAP_IS_STR(pl_py_repr(p, "a'\"b", 0), "'a\\'\"b'", "repr with ' \"");
    TAP_IS_STR(pl_py_repr(p, "a\"b", 0), "'a\"b'", "repr with \"");
    TAP_IS_STR(pl_py_repr(p, "\\", 0), "'\\\\'", "repr backslash");
    TAP_IS_STR(pl_py_repr(p, "\t\n\r\x01\x7f", 0), "'\\t\\n\\r\\x01\\x7f'",
               "repr controls");
    TAP_IS_STR(pl_py_repr(p, "\xc2\x85\xc2\xa0\xc2\xad\xc3\xa9", 0),
               "'\\x85\\xa0\\xad\xc3\xa9'", "repr latin-1 range");
    TAP_IS_STR(pl_py_repr(p, "abcdef", 4), "'abc", "repr cut");
    TAP_IS_STR(pl_py_repr(p,
                          "\x01"
                          "bcdef",
                          3),
               "'\\x",
               "repr cut in "
               "an escape");
    TAP_IS_STR(pl_py_repr(p, "\xc3\xa9\xc3\xa9", 2), "'\xc3\xa9",
               "repr cut counts characters, not bytes");

    /* strip() and whitespace */
    TAP_IS_STR(pl_py_strip(p, " \t a b \xe3\x80\x80", 10), "a b",
               "strip Unicode whitespace");
    TAP_IS_STR(pl_py_strip(p, "\xc2\xa0\xc2\x85", 4), "", "strip to empty");
    TAP_IS_STR(pl_py_strip(p, "  ab  cd", 5), "ab", "strip with len");
    TAP_IS_STR(pl_py_strip(p, "\xc3\x85", 2), "\xc3\x85",
               "U+00C5 (C3 85) is not NEL (C2 85)");
    TAP_IS_STR(pl_py_strip(p,
                           "\xe2\x80\x8b"
                           "a",
                           4),
               "\xe2\x80\x8b"
               "a",
               "zero width space is not whitespace");
    TAP_IS_INT(pl_py_space("\xe2\x80\xa8"), 3, "U+2028 is whitespace");
    TAP_IS_INT(pl_py_space("\x85"), 0, "a lone 0x85 byte is not");
    TAP_IS_INT(pl_py_space(""), 0, "end of string is not");
    TAP_IS_INT(pl_py_u8_len("\xf0\x9f\x98\x80"), 4, "u8_len 4");
    TAP_IS_INT(pl_py_u8_len("\xc3"), 1, "u8_len of a truncated sequence");
    TAP_IS_INT(pl_py_u8_len(""), 0, "u8_len at the end");
}

/* ------------------------------------------------------------------ */
/* once                                                                */
/* ------------------------------------------------------------------ */

static void test_once(apr_pool_t *p)
{
    const char *err = NULL;

    TAP_IS_INT(pl_qs_once(p, "root_required", 0, &err), APR_SUCCESS,
               "once: absent");
    TAP_IS_INT(pl_qs_once(p, "root_required", 1, &err), APR_SUCCESS,
               "once: once");
    TAP_IS_INT(pl_qs_once(p, "root_required", 2, &err), APR_EINVAL,
               "once: twice");
    TAP_IS_STR(err,
               "Query parameter 'root_required' may be specified only "
               "once.",
               "once: text");
}

/* ------------------------------------------------------------------ */
/* resources                                                           */
/* ------------------------------------------------------------------ */

#define RFORM                                                     \
    "Badly formed resources parameter. Expected resources query " \
    "string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: "
#define RNOTINT(n, a)                                     \
    "Requested resource " n " expected positive integer " \
    "amount. Got: " a "."
#define RLT1(n, a) "Requested resource " n " requires amount >= 1. Got: " a "."

static void test_resources(apr_pool_t *p)
{
    static const struct {
        const char *in;
        const char *out; /* rendering, or NULL */
        const char *err;
    } cases[] = {
        { "VCPU:1,DISK_GB:10", "VCPU=1,DISK_GB=10", NULL },
        { "VCPU:1", "VCPU=1", NULL },
        { "CUSTOM_X_Y:3", "CUSTOM_X_Y=3", NULL },
        { "VCPU:+3", "VCPU=3", NULL },
        { "VCPU: 4 ", "VCPU=4", NULL },
        { "VCPU:007", "VCPU=7", NULL },
        { "VCPU:1_000", "VCPU=1000", NULL },
        { "VCPU:\xd9\xa3", "VCPU=3", NULL },
        { "VCPU:\xef\xbc\x93", "VCPU=3", NULL },
        { "VCPU:\xc2\xa0"
          "5",
          "VCPU=5", NULL },
        { "VCPU:5\xe2\x80\x83", "VCPU=5", NULL },
        /* names are neither stripped nor checked here */
        { " VCPU:1", " VCPU=1", NULL },
        { ":1", "=1", NULL },
        { "\xc3\x84\xc3\x96:2", "\xc3\x84\xc3\x96=2", NULL },
        /* a repeated class: last amount, first place, no error */
        { "VCPU:1,VCPU:2", "VCPU=2", NULL },
        { "VCPU:1,DISK_GB:2,VCPU:3", "VCPU=3,DISK_GB=2", NULL },
        /* int64 and beyond */
        { "VCPU:9223372036854775807", "VCPU=9223372036854775807", NULL },
        { "VCPU:9223372036854775808", "VCPU=9223372036854775807", NULL },
        { "VCPU:99999999999999999999999999", "VCPU=9223372036854775807", NULL },
        /* malformed */
        { "", NULL, RFORM "empty string." },
        { "   ", NULL, RFORM "empty string." },
        { "\xe3\x80\x80", NULL, RFORM "empty string." },
        { "VCPU", NULL, RFORM "VCPU." },
        { "VCPU:1:2", NULL, RFORM "VCPU:1:2." },
        { "VCPU:1,", NULL, RFORM "." },
        { ",VCPU:1", NULL, RFORM "." },
        { "VCPU:1,,DISK_GB:1", NULL, RFORM "." },
        { "VCPU=1", NULL, RFORM "VCPU=1." },
        { "VCPU:1;DISK_GB:2", NULL, RFORM "VCPU:1;DISK_GB:2." },
        { "VCPU:1,DISK_GB", NULL, RFORM "DISK_GB." },
        /* not integers */
        { "VCPU:", NULL, RNOTINT("VCPU", "") },
        { "VCPU:1.5", NULL, RNOTINT("VCPU", "1.5") },
        { "VCPU:1e3", NULL, RNOTINT("VCPU", "1e3") },
        { "VCPU:0x10", NULL, RNOTINT("VCPU", "0x10") },
        { "VCPU:1__0", NULL, RNOTINT("VCPU", "1__0") },
        { "VCPU:_1", NULL, RNOTINT("VCPU", "_1") },
        { "VCPU:1_", NULL, RNOTINT("VCPU", "1_") },
        { "VCPU:\xc3\xa9", NULL, RNOTINT("VCPU", "\xc3\xa9") },
        { "VCPU:\xc2\xb2", NULL, RNOTINT("VCPU", "\xc2\xb2") },
        { "VCPU:x,DISK_GB:0", NULL, RNOTINT("VCPU", "x") },
        { " VCPU : x", NULL, RNOTINT(" VCPU ", " x") },
        /* not positive: the amount as Python prints the int */
        { "VCPU:0", NULL, RLT1("VCPU", "0") },
        { "VCPU:-1", NULL, RLT1("VCPU", "-1") },
        { "VCPU:-0", NULL, RLT1("VCPU", "0") },
        { "VCPU:-000", NULL, RLT1("VCPU", "0") },
        { "VCPU:-0012", NULL, RLT1("VCPU", "-12") },
        { "VCPU:-1_0", NULL, RLT1("VCPU", "-10") },
        { "VCPU:-99999999999999999999999", NULL,
          RLT1("VCPU", "-99999999999999999999999") },
        { "VCPU:0,DISK_GB:x", NULL, RLT1("VCPU", "0") },
        { "DISK_GB:1,VCPU:0", NULL, RLT1("VCPU", "0") },
    };
    size_t i;
    const char *long_amount;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        apr_array_header_t *res = NULL;
        const char *err = NULL;
        apr_status_t rv = pl_qs_resources(p, cases[i].in, &res, &err);

        if (cases[i].out) {
            TAP_IS_INT(rv, APR_SUCCESS, "resources=%s", cases[i].in);
            TAP_IS_STR(rv ? err : render_resources(p, res), cases[i].out,
                       "resources=%s parsed", cases[i].in);
        }
        else {
            TAP_IS_INT(rv, APR_EINVAL, "resources=%s refused", cases[i].in);
            TAP_IS_STR(err, cases[i].err, "resources=%s text", cases[i].in);
        }
    }

    /* Python's 4300-digit limit is a ValueError too: "not an integer" */
    long_amount = repeat(p, "1", 4301);
    {
        apr_array_header_t *res;
        const char *err = NULL;

        TAP_IS_INT(pl_qs_resources(p,
                                   apr_pstrcat(p, "VCPU:", long_amount, NULL),
                                   &res, &err),
                   APR_EINVAL, "4301-digit amount refused");
        TAP_IS_STR(err,
                   apr_pstrcat(p,
                               "Requested resource VCPU expected "
                               "positive integer amount. Got: ",
                               long_amount, ".", NULL),
                   "4301-digit amount text");
        TAP_IS_INT(pl_qs_resources(
                       p,
                       apr_pstrcat(p, "VCPU:", repeat(p, "0", 4300), "1", NULL),
                       &res, &err),
                   APR_EINVAL, "4301 digits, even with leading zeros");
        TAP_IS_INT(pl_qs_resources(
                       p,
                       apr_pstrcat(p, "VCPU:", repeat(p, "0", 4299), "1", NULL),
                       &res, &err),
                   APR_SUCCESS, "4300 digits are fine");
        TAP_IS_INT(APR_ARRAY_IDX(res, 0, pl_qs_resource_t).amount, 1,
                   "4300 digits: value 1");
    }
}

/* ------------------------------------------------------------------ */
/* required, root_required, conflicts                                  */
/* ------------------------------------------------------------------ */

#define FORM_PLAIN "HW_CPU_X86_VMX,CUSTOM_MAGIC"
#define FORM_BANG "HW_CPU_X86_VMX,!CUSTOM_MAGIC"
#define EEMPTY(form, v)                               \
    IQS "Expected 'required' parameter value of the " \
        "form: " form ". Got an empty trait in: " v
#define EBANG(v)                                                       \
    IQS "Expected 'required' parameter value of the form: " FORM_PLAIN \
        ". Got: " v
#define EANY139(v)                                          \
    IQS "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only " \
        "supported since microversion 1.39. Got: " v
#define EANYEMPTY(v)                                  \
    IQS "Expected 'required' parameter value of the " \
        "form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: " v
#define EANYBANG(v)                                         \
    IQS "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does " \
        "not support forbidden traits. Got: " v
#define CONFLICT                                              \
    "Conflicting required and forbidden traits found in the " \
    "following traits keys: "

typedef struct {
    int minor;
    const char *values[4];
    const char *out; /* render_traits(), or NULL */
    const char *err;
    const char *conflict; /* for out: pl_qs_traits_conflict_msg() */
} req_case_t;

static const req_case_t req_cases[] = {
    { 17, { "A,B" }, "req=A,B any= forb=", NULL, NULL },
    { 39, { "A" }, "req=A any= forb=", NULL, NULL },
    { 39, { "A, B " }, "req=A,B any= forb=", NULL, NULL },
    { 39,
      { "A\xc2\xa0,\xe2\x80\x83"
        "B" },
      "req=A,B any= forb=",
      NULL,
      NULL },
    { 39,
      { "\xc3\xa9,\xc3\xbc" },
      "req=\xc3\xa9,\xc3\xbc any= forb=",
      NULL,
      NULL },
    /* a list: duplicates kept */
    { 39, { "A,A" }, "req=A,A any= forb=", NULL, NULL },
    /* forbidden: 1.22+, any number of '!' */
    { 17, { "!A" }, NULL, EBANG("!A"), NULL },
    { 21, { "A,!B" }, NULL, EBANG("A,!B"), NULL },
    { 22, { "!A" }, "req= any= forb=A", NULL, NULL },
    { 22, { "A,!B" }, "req=A any= forb=B", NULL, NULL },
    { 22, { "!!A" }, "req= any= forb=A", NULL, NULL },
    { 22, { " !A" }, "req= any= forb=A", NULL, NULL },
    { 22, { "! A" }, "req= any= forb= A", NULL, NULL },
    { 22, { "A,B,!C,!D,!!C" }, "req=A,B any= forb=C,D", NULL, NULL },
    { 22, { "A,!A" }, "req=A any= forb=A", NULL, CONFLICT "required: (A)" },
    { 38,
      { "A,A,!A" },
      "req=A,A any= forb=A",
      NULL,
      CONFLICT "required: (A), required: (A)" },
    /* empty items */
    { 17, { "!" }, NULL, EEMPTY(FORM_PLAIN, "!"), NULL },
    { 22, { "!" }, NULL, EEMPTY(FORM_BANG, "!"), NULL },
    { 21, { "A," }, NULL, EEMPTY(FORM_PLAIN, "A,"), NULL },
    { 39, { "A," }, NULL, EEMPTY(FORM_BANG, "A,"), NULL },
    { 39, { ",A" }, NULL, EEMPTY(FORM_BANG, ",A"), NULL },
    { 39, { "" }, NULL, EEMPTY(FORM_BANG, ""), NULL },
    { 39, { " " }, NULL, EEMPTY(FORM_BANG, " "), NULL },
    { 21, { "A,,!B" }, NULL, EEMPTY(FORM_PLAIN, "A,,!B"), NULL },
    /* any-of: 1.39+ */
    { 38, { "in:A,B" }, NULL, EANY139("in:A,B"), NULL },
    { 17, { "in:" }, NULL, EANY139("in:"), NULL },
    { 39, { "in:A,B" }, "req= any=(A|B) forb=", NULL, NULL },
    { 39, { "in:A" }, "req= any=(A) forb=", NULL, NULL },
    { 39, { "in: A , B" }, "req= any=(A|B) forb=", NULL, NULL },
    { 39, { "in:A,A,B" }, "req= any=(A|B) forb=", NULL, NULL },
    { 39, { "in:" }, NULL, EANYEMPTY("in:"), NULL },
    { 39, { "in:A," }, NULL, EANYEMPTY("in:A,"), NULL },
    { 39, { "in:A,!B" }, NULL, EANYBANG("in:A,!B"), NULL },
    { 39, { "in:!A" }, NULL, EANYBANG("in:!A"), NULL },
    { 39, { "in:,!A" }, NULL, EANYEMPTY("in:,!A"), NULL },
    /* "in:" only as a prefix, and only in lower case */
    { 39, { "IN:A,B" }, "req=IN:A,B any= forb=", NULL, NULL },
    { 39, { " in:A" }, "req=in:A any= forb=", NULL, NULL },
    { 39, { "A,in:B" }, "req=A,in:B any= forb=", NULL, NULL },
    /* repeated: from 1.39 they add up, before only the last counts */
    { 38, { "A", "B" }, "req=B any= forb=", NULL, NULL },
    { 38, { "in:A", "B" }, "req=B any= forb=", NULL, NULL },
    { 21, { "!A", "B" }, "req=B any= forb=", NULL, NULL },
    { 22, { "in:A,B", "!A", "!B" }, "req= any= forb=B", NULL, NULL },
    { 39, { "A", "B" }, "req=A,B any= forb=", NULL, NULL },
    { 39, { "A", "!A" }, "req=A any= forb=A", NULL, CONFLICT "required: (A)" },
    { 39, { "!A", "A" }, "req=A any= forb=A", NULL, CONFLICT "required: (A)" },
    { 39, { "in:A,B", "!A" }, "req= any=(A|B) forb=A", NULL, NULL },
    { 39,
      { "in:B,A", "!A", "!B" },
      "req= any=(B|A) forb=A,B",
      NULL,
      CONFLICT "required: (A, B)" },
    { 39, { "in:A", "in:A" }, "req= any=(A)(A) forb=", NULL, NULL },
    { 39,
      { "Z,!Z", "in:C,B", "!B,!C,Y,!Y" },
      "req=Z,Y any=(C|B) forb=Z,B,C,Y",
      NULL,
      CONFLICT "required: (B, C), required: (Y), required: (Z)" },
    { 39, { "A", "in:" }, NULL, EANYEMPTY("in:"), NULL },
    { 39, { "in:!A", "in:" }, NULL, EANYBANG("in:!A"), NULL },
    /* none */
    { 39, { NULL }, "req= any= forb=", NULL, NULL },
};

static void test_required(apr_pool_t *p)
{
    size_t i;

    for (i = 0; i < sizeof(req_cases) / sizeof(req_cases[0]); i++) {
        const req_case_t *c = &req_cases[i];
        apr_array_header_t *vals = mkvals(p, c->values);
        const char *name = apr_psprintf(p, "1.%d required=%s%s", c->minor,
                                        render_list(p, vals, "&required="), "");
        pl_qs_traits_t *t = NULL;
        const char *err = NULL;
        apr_status_t rv;

        rv = pl_qs_required(p, PL_MV(1, c->minor), vals, &t, &err);
        if (c->out) {
            apr_array_header_t *conf;

            TAP_IS_INT(rv, APR_SUCCESS, "%s", name);
            if (rv != APR_SUCCESS) {
                tap_diag_str("err", err);
                continue;
            }
            TAP_IS_STR(render_traits(p, t), c->out, "%s: parsed", name);
            conf = apr_array_make(p, 1, sizeof(const char *));
            pl_qs_traits_conflicts(p, t, "", conf);
            TAP_IS_STR(pl_qs_traits_conflict_msg(p, conf), c->conflict,
                       "%s: conflicts", name);
        }
        else {
            TAP_IS_INT(rv, APR_EINVAL, "%s refused", name);
            TAP_IS_STR(err, c->err, "%s: text", name);
        }
    }
}

static void test_traits_value(apr_pool_t *p)
{
    pl_qs_traits_t *t = pl_qs_traits_make(p);
    const char *err = NULL;
    apr_array_header_t *conf = apr_array_make(p, 4, sizeof(const char *));

    /* the building block, used across groups by the caller */
    TAP_IS_INT(pl_qs_traits_value(p, "A,!B", 1, 1, t, &err), APR_SUCCESS,
               "value 1");
    TAP_IS_INT(pl_qs_traits_value(p, "in:B,C", 1, 1, t, &err), APR_SUCCESS,
               "value 2");
    TAP_IS_INT(pl_qs_traits_value(p, "!C,!B", 1, 1, t, &err), APR_SUCCESS,
               "value 3");
    TAP_IS_STR(render_traits(p, t), "req=A any=(B|C) forb=B,C",
               "values accumulate");
    TAP_IS_INT(pl_qs_traits_value(p, "in:D", 1, 0, t, &err), APR_EINVAL,
               "allow_any off");
    TAP_IS_STR(render_traits(p, t), "req=A any=(B|C) forb=B,C",
               "a refused value adds nothing");
    TAP_IS_INT(pl_qs_traits_value(p, "E,!F", 0, 1, t, &err), APR_EINVAL,
               "allow_forbidden off");
    TAP_IS_STR(render_traits(p, t), "req=A any=(B|C) forb=B,C",
               "a refused value adds nothing (2)");

    /* conflicts over two groups, sorted together */
    pl_qs_traits_conflicts(p, t, "_NET", conf);
    t = pl_qs_traits_make(p);
    pl_qs_traits_value(p, "A,!A", 1, 1, t, &err);
    pl_qs_traits_conflicts(p, t, "", conf);
    pl_qs_traits_conflicts(p, t, "1", conf);
    TAP_IS_INT(conf->nelts, 3, "three conflicts");
    TAP_IS_STR(pl_qs_traits_conflict_msg(p, conf),
               CONFLICT "required1: (A), required: (A), "
                        "required_NET: (B, C)",
               "conflicts sorted over groups");
    conf = apr_array_make(p, 1, sizeof(const char *));
    TAP_IS_STR(pl_qs_traits_conflict_msg(p, conf), NULL, "no conflicts");
}

static void test_root_required(apr_pool_t *p)
{
    static const struct {
        const char *values[3];
        const char *out;
        const char *err;
    } cases[] = {
        { { "A,!B" }, "req=A any= forb=B", NULL },
        { { "A,A,B" }, "req=A,B any= forb=", NULL }, /* a set */
        { { "!A,!!A" }, "req= any= forb=A", NULL },
        { { NULL }, "req= any= forb=", NULL },
        { { "A,!A" },
          NULL,
          "Conflicting required and forbidden traits found "
          "in root_required: A" },
        { { "B,A,!B,!A,C" },
          NULL,
          "Conflicting required and forbidden "
          "traits found in root_required: A, B" },
        { { "in:A,B" }, NULL, EANY139("in:A,B") },
        { { "!" }, NULL, EEMPTY(FORM_BANG, "!") },
        { { "" }, NULL, EEMPTY(FORM_BANG, "") },
        { { "A", "B" },
          NULL,
          "Query parameter 'root_required' may be "
          "specified only once." },
        { { "in:", "in:" },
          NULL,
          "Query parameter 'root_required' may be "
          "specified only once." },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        apr_array_header_t *vals = mkvals(p, cases[i].values);
        const char *name = render_list(p, vals, "&root_required=");
        pl_qs_traits_t *t = NULL;
        const char *err = NULL, *code = NULL;
        apr_status_t rv = pl_qs_root_required(p, vals, &t, &err, &code);

        if (cases[i].out) {
            TAP_IS_INT(rv, APR_SUCCESS, "root_required=%s", name);
            TAP_IS_STR(t ? render_traits(p, t) : NULL, cases[i].out,
                       "root_required=%s parsed", name);
        }
        else {
            TAP_IS_INT(rv, APR_EINVAL, "root_required=%s refused", name);
            TAP_IS_STR(err, cases[i].err, "root_required=%s text", name);
            TAP_IS_STR(code,
                       !strncmp(cases[i].err, "Conflicting", 11)
                           ? PL_ERRC_QUERY_BAD_VALUE
                           : NULL,
                       "root_required=%s code", name);
        }
    }
}

/* ------------------------------------------------------------------ */
/* member_of                                                           */
/* ------------------------------------------------------------------ */

#define EMULTI(v)                                            \
    "Multiple values for 'member_of' must be prefixed with " \
    "the 'in:' or '!in:' keyword using the valid microversion. Got: " v
#define EUUID(v)                                           \
    IQS "Expected 'member_of' parameter to contain valid " \
        "UUID(s). Got: " v
#define EREPEAT(s) "Multiple member_of" s " parameters are not supported"
#define EFORB(s)                                                \
    "Forbidden member_of" s " parameters are not supported in " \
    "the specified microversion"

static void test_member_of(apr_pool_t *p)
{
    static const struct {
        int minor;
        const char *suffix;
        const char *values[4];
        const char *out; /* "any=(..)(..) forb=a,b" */
        const char *err;
    } cases[] = {
        { 3, "", { U1 }, "any=(" U1 ") forb=", NULL },
        { 3, "", { "in:" U1 "," U2 }, "any=(" U1 "|" U2 ") forb=", NULL },
        { 3, "", { "in:" U1 "," U1 }, "any=(" U1 ") forb=", NULL },
        /* kept as written: upper case, no dashes, braces */
        { 3, "", { U2 }, "any=(" U2 ") forb=", NULL },
        { 3, "", { U3 }, "any=(" U3 ") forb=", NULL },
        { 3,
          "",
          { "{urn:uuid:" U1 "}" },
          "any=({urn:uuid:" U1 "}) forb=",
          NULL },
        /* several values: 1.24+ */
        { 23, "", { U1, U2 }, NULL, EREPEAT("") },
        { 23, "1", { U1, "x" }, NULL, EREPEAT("1") },
        { 24,
          "",
          { U1, "in:" U2 "," U3 },
          "any=(" U1 ")(" U2 "|" U3 ") forb=",
          NULL },
        /* forbidden: 1.32+ */
        { 31, "", { "!" U1 }, NULL, EFORB("") },
        { 31, "_A", { U1, "!in:" U2 }, NULL, EFORB("_A") },
        { 32, "", { "!" U1 }, "any= forb=" U1, NULL },
        { 32, "", { "!in:" U1 "," U3 }, "any= forb=" U1 "," U3, NULL },
        { 32,
          "",
          { "!" U1, "!in:" U2 "," U1, U3 },
          "any=(" U3 ") forb=" U1 "," U2,
          NULL },
        /* the value is checked before the microversion allows '!' */
        { 31, "", { "!x" }, NULL, EUUID("x") },
        /* malformed values */
        { 39, "", { U1 "," U2 }, NULL, EMULTI(U1 "," U2) },
        { 3, "", { U1 "," U2 }, NULL, EMULTI(U1 "," U2) },
        { 39, "", { "!" U1 "," U2 }, NULL, EMULTI("!" U1 "," U2) },
        { 39, "", { "IN:" U1 "," U2 }, NULL, EMULTI("IN:" U1 "," U2) },
        { 39, "", { "x" }, NULL, EUUID("x") },
        { 39, "", { "" }, NULL, EUUID("") },
        { 39, "", { "in:" }, NULL, EUUID("") },
        { 39, "", { "!" }, NULL, EUUID("") },
        { 39, "", { "!in:" }, NULL, EUUID("") },
        { 39, "", { "in:" U1 "," }, NULL, EUUID("") },
        { 39, "", { "in: " U1 }, NULL, EUUID(" " U1) },
        { 39, "", { U1 " " }, NULL, EUUID(U1 " ") },
        { 39, "", { "!!" U1 }, NULL, EUUID("!" U1) },
        { 39, "", { "in:!" U1 }, NULL, EUUID("!" U1) },
        { 39, "", { "IN:" U1 }, NULL, EUUID("IN:" U1) },
        { 39, "", { "in:" U1 ",x,y" }, NULL, EUUID("x") },
        { 39, "", { U1, "x", "!y" }, NULL, EUUID("x") },
        { 39, "", { U1, U2 "," U1 }, NULL, EMULTI(U2 "," U1) },
        { 39, "", { NULL }, "any= forb=", NULL },
    };
    size_t i;
    apr_array_header_t *req, *forb;
    const char *err;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        apr_array_header_t *vals = mkvals(p, cases[i].values);
        const char *name = apr_psprintf(p, "1.%d member_of%s=%s",
                                        cases[i].minor, cases[i].suffix,
                                        render_list(p, vals, "&"));
        pl_qs_member_of_t *mo = NULL;
        apr_status_t rv;

        err = NULL;
        rv = pl_qs_member_of(p, PL_MV(1, cases[i].minor), cases[i].suffix, vals,
                             &mo, &err);
        if (cases[i].out) {
            TAP_IS_INT(rv, APR_SUCCESS, "%s", name);
            TAP_IS_STR(
                mo ? apr_pstrcat(p, "any=", render_sets(p, mo->any_of),
                                 " forb=", render_list(p, mo->forbidden, ","),
                                 NULL)
                   : err,
                cases[i].out, "%s: parsed", name);
        }
        else {
            TAP_IS_INT(rv, APR_EINVAL, "%s refused", name);
            TAP_IS_STR(err, cases[i].err, "%s: text", name);
        }
    }

    /* one value */
    TAP_IS_INT(pl_qs_member_of_value(p, "!in:" U1 "," U2, &req, &forb, &err),
               APR_SUCCESS, "one value: !in:");
    TAP_IS_INT(req->nelts, 0, "one value: no required");
    TAP_IS_STR(render_list(p, forb, ","), U1 "," U2, "one value: forbidden");
    TAP_IS_INT(pl_qs_member_of_value(p, U1, &req, &forb, &err), APR_SUCCESS,
               "one value: plain");
    TAP_IS_STR(render_list(p, req, ","), U1, "one value: required");
    TAP_IS_INT(forb->nelts, 0, "one value: no forbidden");
}

/* ------------------------------------------------------------------ */
/* in_tree, same_subtree, group keys                                   */
/* ------------------------------------------------------------------ */

#define ETREE(v)                                          \
    IQS "Expected 'in_tree' parameter to be a format of " \
        "uuid. Got: " v

static void test_in_tree(apr_pool_t *p)
{
    static const struct {
        const char *in;
        const char *out;
        const char *err;
    } cases[] = {
        { U1, U1, NULL },
        { " " U1 " ", U1, NULL },
        { "\xc2\xa0" U1 "\xe2\x80\x83", U1, NULL },
        { U2, U2, NULL }, /* kept as written */
        { U3, U3, NULL },
        { "{" U1 "}", "{" U1 "}", NULL },
        { "x", NULL, ETREE("x") },
        { "", NULL, ETREE("") },
        { " x ", NULL, ETREE(" x ") }, /* the text shows it unstripped */
        { U1 ",", NULL, ETREE(U1 ",") },
        { U3 "0", NULL, ETREE(U3 "0") },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *out = NULL, *err = NULL;
        apr_status_t rv = pl_qs_in_tree(p, cases[i].in, &out, &err);

        if (cases[i].out) {
            TAP_IS_INT(rv, APR_SUCCESS, "in_tree=%s", cases[i].in);
            TAP_IS_STR(out, cases[i].out, "in_tree=%s value", cases[i].in);
        }
        else {
            TAP_IS_INT(rv, APR_EINVAL, "in_tree=%s refused", cases[i].in);
            TAP_IS_STR(err, cases[i].err, "in_tree=%s text", cases[i].in);
        }
    }
}

static void test_same_subtree(apr_pool_t *p)
{
    static const char *const e = "Empty string (unsuffixed group) can not "
                                 "be specified in `same_subtree` ";
    static const struct {
        const char *values[3];
        const char *out;
        const char *err;
    } cases[] = {
        { { "1,2" }, "(1|2)", NULL },
        { { " 1 , 2 " }, "(1|2)", NULL },
        { { "1,1,2" }, "(1|2)", NULL },
        { { "_a,b-c" }, "(_a|b-c)", NULL },
        { { "1", "2,3" }, "(1)(2|3)", NULL },
        { { NULL }, "", NULL },
        { { "1," }, NULL, NULL },
        { { "" }, NULL, NULL },
        { { " " }, NULL, NULL },
        { { "1", ",2" }, NULL, NULL },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        apr_array_header_t *vals = mkvals(p, cases[i].values), *sets = NULL;
        const char *name = render_list(p, vals, "&same_subtree=");
        const char *err = NULL;
        apr_status_t rv = pl_qs_same_subtree(p, vals, &sets, &err);

        if (cases[i].out) {
            TAP_IS_INT(rv, APR_SUCCESS, "same_subtree=%s", name);
            TAP_IS_STR(sets ? render_sets(p, sets) : err, cases[i].out,
                       "same_subtree=%s parsed", name);
        }
        else {
            TAP_IS_INT(rv, APR_EINVAL, "same_subtree=%s refused", name);
            TAP_IS_STR(err, e, "same_subtree=%s text", name);
        }
    }
}

static void test_group_key(apr_pool_t *p)
{
    static const struct {
        int minor;
        const char *key;
        int which; /* -1: not a group key */
        const char *suffix;
    } cases[] = {
        { 25, "resources", PL_QS_GROUP_RESOURCES, "" },
        { 25, "required", PL_QS_GROUP_REQUIRED, "" },
        { 25, "member_of", PL_QS_GROUP_MEMBER_OF, "" },
        { 31, "in_tree", PL_QS_GROUP_IN_TREE, "" },
        { 25, "resources1", PL_QS_GROUP_RESOURCES, "1" },
        { 25, "required42", PL_QS_GROUP_REQUIRED, "42" },
        { 32, "member_of10", PL_QS_GROUP_MEMBER_OF, "10" },
        { 32, "in_tree7", PL_QS_GROUP_IN_TREE, "7" },
        { 32, "resources0", -1, NULL },
        { 32, "resources01", -1, NULL },
        { 32, "resources_A", -1, NULL },
        { 33, "resources_A", PL_QS_GROUP_RESOURCES, "_A" },
        { 33, "resources0", PL_QS_GROUP_RESOURCES, "0" },
        { 33, "required-x_Y9", PL_QS_GROUP_REQUIRED, "-x_Y9" },
        { 33, "resources.A", -1, NULL },
        { 33, "resources A", -1, NULL },
        { 39, "limit", -1, NULL },
        { 39, "group_policy", -1, NULL },
        { 39, "root_required", -1, NULL },
        { 39, "same_subtree", -1, NULL },
        { 39, "resource", -1, NULL },
        { 39, "Resources", -1, NULL },
        { 39, "", -1, NULL },
    };
    size_t i;
    char key65[80], key64[80];

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pl_qs_group_e which = PL_QS_GROUP_IN_TREE;
        const char *suffix = NULL;
        apr_status_t rv = pl_qs_group_key(PL_MV(1, cases[i].minor),
                                          cases[i].key, &which, &suffix);

        if (cases[i].which >= 0) {
            TAP_IS_INT(rv, APR_SUCCESS, "1.%d key %s", cases[i].minor,
                       cases[i].key);
            TAP_IS_INT(which, cases[i].which, "1.%d key %s: parameter",
                       cases[i].minor, cases[i].key);
            TAP_IS_STR(suffix, cases[i].suffix, "1.%d key %s: suffix",
                       cases[i].minor, cases[i].key);
        }
        else {
            TAP_IS_INT(rv, APR_ENOENT, "1.%d key [%s] is not a group key",
                       cases[i].minor, cases[i].key);
        }
    }
    strcpy(key64, "resources");
    memset(key64 + 9, 'a', 64);
    key64[73] = '\0';
    strcpy(key65, key64);
    strcat(key65, "a");
    {
        pl_qs_group_e which;
        const char *suffix;

        TAP_IS_INT(pl_qs_group_key(PL_MV(1, 33), key64, &which, &suffix),
                   APR_SUCCESS, "64-character suffix");
        TAP_IS_INT(pl_qs_group_key(PL_MV(1, 33), key65, &which, &suffix),
                   APR_ENOENT, "65-character suffix");
    }
    (void)p;
}

/* ------------------------------------------------------------------ */
/* GET /traits                                                         */
/* ------------------------------------------------------------------ */

static void test_trait_filters(apr_pool_t *p)
{
    static const struct {
        const char *in;
        int op;          /* -1: refused */
        const char *arg; /* names joined by '|', or the prefix */
    } cases[] = {
        { "in:A,B", PL_QS_NAME_IN, "A|B" },
        { "in:A, B", PL_QS_NAME_IN, "A| B" }, /* not stripped */
        { "in:", PL_QS_NAME_IN, "" },
        { "in:A,,B", PL_QS_NAME_IN, "A||B" },
        { "in:a:b", PL_QS_NAME_IN, "a:b" },
        { "startswith:CUSTOM_", PL_QS_NAME_STARTSWITH, "CUSTOM_" },
        { "startswith:", PL_QS_NAME_STARTSWITH, "" },
        { "startswith:a,b", PL_QS_NAME_STARTSWITH, "a,b" },
        /* unknown operators are no filter at all */
        { "foo:bar", PL_QS_NAME_ANY, NULL },
        { ":x", PL_QS_NAME_ANY, NULL },
        { "IN:A", PL_QS_NAME_ANY, NULL },
        { " in:A", PL_QS_NAME_ANY, NULL },
        { "inx:A", PL_QS_NAME_ANY, NULL },
        { "A", -1, NULL },
        { "", -1, NULL },
        { "in", -1, NULL },
    };
    static const struct {
        const char *in;
        int value; /* -1: refused */
    } assoc[] = {
        { "true", 1 },   { "false", 0 },        { "TRUE", 1 }, { "False", 0 },
        { "tRuE", 1 },   { "yes", -1 },         { "", -1 },    { " true", -1 },
        { "true ", -1 }, { "1", -1 },           { "0", -1 },   { "tru", -1 },
        { "truee", -1 }, { "tru\xd0\xb5", -1 },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pl_qs_trait_name_t *f = NULL;
        const char *err = NULL;
        apr_status_t rv = pl_qs_trait_name(p, cases[i].in, &f, &err);

        if (cases[i].op < 0) {
            TAP_IS_INT(rv, APR_EINVAL, "name=%s refused", cases[i].in);
            TAP_IS_STR(err,
                       apr_pstrcat(p,
                                   "Badly formatted name parameter. "
                                   "Expected name query string "
                                   "parameter in form: ?name=[in|"
                                   "startswith]:[name1,name2|prefix]. "
                                   "Got: \"",
                                   cases[i].in, "\"", NULL),
                       "name=%s text", cases[i].in);
            continue;
        }
        TAP_IS_INT(rv, APR_SUCCESS, "name=%s", cases[i].in);
        if (rv != APR_SUCCESS) {
            continue;
        }
        TAP_IS_INT(f->op, cases[i].op, "name=%s operator", cases[i].in);
        if (cases[i].op == PL_QS_NAME_IN) {
            TAP_IS_STR(render_list(p, f->names, "|"), cases[i].arg,
                       "name=%s names", cases[i].in);
        }
        else if (cases[i].op == PL_QS_NAME_STARTSWITH) {
            TAP_IS_STR(f->prefix, cases[i].arg, "name=%s prefix", cases[i].in);
        }
    }

    for (i = 0; i < sizeof(assoc) / sizeof(assoc[0]); i++) {
        const char *err = NULL;
        int v = -1;
        apr_status_t rv = pl_qs_associated(p, assoc[i].in, &v, &err);

        if (assoc[i].value >= 0) {
            TAP_IS_INT(rv, APR_SUCCESS, "associated=%s", assoc[i].in);
            TAP_IS_INT(v, assoc[i].value, "associated=%s value", assoc[i].in);
        }
        else {
            TAP_IS_INT(rv, APR_EINVAL, "associated=%s refused", assoc[i].in);
            TAP_IS_STR(err,
                       "The query parameter \"associated\" only accepts "
                       "\"true\" or \"false\"",
                       "associated=%s text", assoc[i].in);
        }
    }
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    apr_pool_tag(p, "test_qs");

    test_py(p);
    test_once(p);
    test_resources(p);
    test_required(p);
    test_traits_value(p);
    test_root_required(p);
    test_member_of(p);
    test_in_tree(p);
    test_same_subtree(p);
    test_group_key(p);
    test_trait_filters(p);

    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
