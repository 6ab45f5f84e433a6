/* Licensed under the Apache License, Version 2.0.
 *
 * test_uuid.c: pl_uuid_is_like(), pl_uuid_normalize() (oslo's
 * is_uuid_like and Python's str(uuid.UUID(x))), pl_uuid_new() and
 * pl_uuid_request_id().
 */
#include <string.h>

#include <apr_general.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "pl_uuid.h"
#include "tap.h"

#define U1 "6c8e4f1a-3b2d-4c5e-9f70-1a2b3c4d5e6f"
#define U1_HEX "6c8e4f1a3b2d4c5e9f701a2b3c4d5e6f"
#define U3 "aabbccddeeff00112233445566778899"
#define U3_CANON "aabbccdd-eeff-0011-2233-445566778899"

typedef struct {
    const char *in;
    const char *canon; /* NULL: not uuid-like */
} uuid_case_t;

static const uuid_case_t uuid_cases[] = {
    /* the usual spellings */
    { U1, U1 },
    { "6C8E4F1A-3B2D-4C5E-9F70-1A2B3C4D5E6F", U1 },
    { U1_HEX, U1 },
    { U3, U3_CANON },
    { "AABBCCDD-EEFF-0011-2233-445566778899", U3_CANON },
    /* braces, "urn:", "uuid:" as uuid.UUID() strips them */
    { "{" U1 "}", U1 },
    { "{{" U1 "}}}", U1 },
    { "urn:uuid:" U1, U1 },
    { "uuid:" U1, U1 },
    { "{urn:uuid:{" U1 "}}", U1 },
    { "}" U3 "{", U3_CANON },
    /* ... and anywhere, since they are removed with str.replace() */
    { "aabbccddeeff0011urn:2233445566778899", U3_CANON },
    { "aabbccddeeff0011uuid:2233445566778899", U3_CANON },
    { "uuid:urn:" U3, U3_CANON },
    { "urn:uuid:urn:" U3, U3_CANON },
    { "uurn:uid:" U3, U3_CANON }, /* "urn:" out, then "uuid:" */
    /* dashes anywhere, in any number */
    { "6c8e4f1a--3b2d-4c5e-9f70-1a2b3c4d5e6f", U1 },
    { U3 "-", U3_CANON },
    { "-" U3, U3_CANON },
    { "a-a-b-b-c-c-d-d-e-e-f-f-0-0-1-1-2-2-3-3-4-4-5-5-6-6-7-7-8-8-9-9",
      U3_CANON },
    /* not uuid-like */
    { "", NULL },
    { "x", NULL },
    { "aabbccddeeff0011223344556677889", NULL }, /* 31 digits */
    { U3 "a", NULL },                            /* 33 digits */
    { "aabbccddeeff0011223344556677889g", NULL },
    { " " U3, NULL },
    { U3 " ", NULL },
    { U3 "\n", NULL },
    { "+abbccddeeff00112233445566778899", NULL },
    { "0xbbccddeeff00112233445566778899", NULL },
    { "aabbccddee_f00112233445566778899", NULL },
    { "URN:UUID:" U1, NULL }, /* case matters */
    { "urn:urn::" U3, NULL },
    { "u{" U3 "}", NULL },
    { "aabbc{cddeeff00112233445566778899", NULL },
    { "\xc3\xa9" U3, NULL },
    { U1 ",", NULL },
    /* 32 Arabic-Indic threes: int(x, 16) takes them, the check does not */
    { "\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3"
      "\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3"
      "\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3"
      "\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3\xd9\xa3",
      NULL },
};

static void test_table(apr_pool_t *p)
{
    size_t i;

    for (i = 0; i < sizeof(uuid_cases) / sizeof(uuid_cases[0]); i++) {
        const uuid_case_t *c = &uuid_cases[i];
        const char *out = "untouched";
        apr_status_t rv = pl_uuid_normalize(p, c->in, &out);

        TAP_IS_INT(pl_uuid_is_like(c->in), c->canon != NULL, "is_like [%s]",
                   c->in);
        if (c->canon) {
            TAP_IS_INT(rv, APR_SUCCESS, "normalize [%s]", c->in);
            TAP_IS_STR(out, c->canon, "canonical form of [%s]", c->in);
        }
        else {
            TAP_IS_INT(rv, APR_EINVAL, "normalize [%s] refused", c->in);
            TAP_IS_STR(out, "untouched", "[%s]: *pout untouched", c->in);
        }
    }
    TAP_IS_INT(pl_uuid_is_like(NULL), 0, "NULL is not uuid-like");
}

/* Strings longer than any fixed buffer still shrink to 32 digits. */
static void test_long(apr_pool_t *p)
{
    char *dashes = apr_palloc(p, 5001);
    const char *s, *out = NULL;

    memset(dashes, '-', 5000);
    dashes[5000] = '\0';
    s = apr_pstrcat(p, dashes, U3, dashes, NULL);
    TAP_IS_INT(pl_uuid_is_like(s), 1, "5000 dashes around a uuid");
    TAP_IS_INT(pl_uuid_normalize(p, s, &out), APR_SUCCESS,
               "5000 dashes: normalized");
    TAP_IS_STR(out, U3_CANON, "5000 dashes: canonical");
    s = apr_pstrcat(p, dashes, U3, "0", NULL);
    TAP_IS_INT(pl_uuid_is_like(s), 0, "5000 dashes and 33 digits");
    s = apr_pstrcat(p, "{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{",
                    "urn:uuid:urn:uuid:urn:uuid:urn:uuid:urn:uuid:",
                    "urn:uuid:urn:uuid:urn:uuid:urn:uuid:urn:uuid:", U1,
                    "}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}",
                    NULL);
    TAP_IS_INT(pl_uuid_is_like(s), 1, "long wrapped uuid");
}

static int is_canonical_v4(const char *s)
{
    int i;

    if (s == NULL || strlen(s) != 36) {
        return 0;
    }
    for (i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-') {
                return 0;
            }
        }
        else if (!apr_isxdigit(s[i]) || apr_isupper(s[i])) {
            return 0;
        }
    }
    /* version 4, variant 10xx */
    return s[14] == '4' && strchr("89ab", s[19]) != NULL;
}

static void test_new(apr_pool_t *p)
{
    const char *a = pl_uuid_new(p), *b = pl_uuid_new(p), *r, *out = NULL;
    int i, all_ok = 1;

    TAP_OK(is_canonical_v4(a), "new uuid is a canonical v4: %s", a);
    TAP_OK(strcmp(a, b) != 0, "two new uuids differ");
    TAP_IS_INT(pl_uuid_normalize(p, a, &out), APR_SUCCESS,
               "a new uuid is uuid-like");
    TAP_IS_STR(out, a, "a new uuid is already canonical");
    for (i = 0; i < 1000 && all_ok; i++) {
        all_ok = is_canonical_v4(pl_uuid_new(p));
    }
    TAP_OK(all_ok, "1000 new uuids are canonical v4");

    r = pl_uuid_request_id(p);
    TAP_IS_INT(strlen(r), 40, "request id length");
    TAP_OK(strncmp(r, "req-", 4) == 0, "request id starts req-: %s", r);
    TAP_OK(is_canonical_v4(r + 4), "request id ends in a v4 uuid");
    TAP_OK(strcmp(r, pl_uuid_request_id(p)) != 0, "request ids differ");
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    apr_pool_tag(p, "test_uuid");

    test_table(p);
    test_long(p);
    test_new(p);

    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
