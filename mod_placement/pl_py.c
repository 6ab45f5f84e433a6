/* Licensed under the Apache License, Version 2.0.
 *
 * pl_py.c: Python's string rules in C (str.isspace(), str.strip(),
 * int(), repr()), for the parsers that must read input as upstream's
 * Python does. Pure: APR only.
 */
#include <stdlib.h>
#include <string.h>

#include <apr_lib.h>
#include <apr_strings.h>

#include "pl_py.h"

/* ------------------------------------------------------------------ */
/* UTF-8 and the Unicode facts Python's str methods rely on            */
/* ------------------------------------------------------------------ */

/* Decode one character at s (not at its end). Returns its length in
 * bytes. A byte that does not start a valid sequence is one character
 * of its own, U+DC00 + byte (Python's "surrogateescape"), which is
 * neither whitespace nor a digit, so nothing is skipped or misread. */
static apr_size_t u8_next(const char *s, apr_uint32_t *pcp)
{
    const unsigned char *u = (const unsigned char *)s;
    apr_uint32_t cp;
    apr_size_t n, i;

    if (u[0] < 0x80) {
        *pcp = u[0];
        return 1;
    }
    if (u[0] >= 0xc2 && u[0] <= 0xdf) {
        cp = u[0] & 0x1f;
        n = 2;
    }
    else if (u[0] >= 0xe0 && u[0] <= 0xef) {
        cp = u[0] & 0x0f;
        n = 3;
    }
    else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
        cp = u[0] & 0x07;
        n = 4;
    }
    else {
        *pcp = 0xdc00 + u[0];
        return 1;
    }
    for (i = 1; i < n; i++) {
        if ((u[i] & 0xc0) != 0x80) {
            *pcp = 0xdc00 + u[0];
            return 1;
        }
        cp = (cp << 6) | (u[i] & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
        || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) {
        *pcp = 0xdc00 + u[0];
        return 1;
    }
    *pcp = cp;
    return n;
}

/* str.isspace() (Unicode 14, Python 3.11). */
static int py_isspace(apr_uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20)
           || cp == 0x85 || cp == 0xa0 || cp == 0x1680
           || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028
           || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* The zero of every run of Unicode decimal digits (category Nd, Unicode
 * 14.0); each run holds the ten digits 0-9 in order. */
static const apr_uint32_t nd_zeros[] = {
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6,
    0xC66, 0xCE6, 0xD66, 0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090,
    0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0,
    0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50,
    0xABF0, 0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0,
    0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0,
    0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50,
    0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0,
    0x1E950, 0x1FBF0
};

/* The decimal value of cp (unicodedata.decimal), or -1. */
static int py_decimal(apr_uint32_t cp)
{
    apr_size_t i;

    for (i = 0; i < sizeof(nd_zeros) / sizeof(nd_zeros[0]); i++) {
        if (cp < nd_zeros[i]) {
            break;
        }
        if (cp < nd_zeros[i] + 10) {
            return (int)(cp - nd_zeros[i]);
        }
    }
    return -1;
}

/* str.isprintable() for cp <= 0xff and for surrogates; other characters
 * are taken as printable (see pl_py_repr in pl_py.h). */
static int py_isprintable(apr_uint32_t cp)
{
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0xa0)
        || cp == 0xad || (cp >= 0xd800 && cp <= 0xdfff)) {
        return 0;
    }
    return 1;
}

apr_size_t pl_py_space(const char *s)
{
    apr_uint32_t cp;
    apr_size_t n;

    if (s == NULL || *s == '\0') {
        return 0;
    }
    n = u8_next(s, &cp);
    return py_isspace(cp) ? n : 0;
}

apr_size_t pl_py_u8_len(const char *s)
{
    apr_uint32_t cp;

    return (s == NULL || *s == '\0') ? 0 : u8_next(s, &cp);
}

const char *pl_py_strip(apr_pool_t *p, const char *s, apr_size_t len)
{
    const char *end = s + len, *start, *last;
    apr_size_t n;

    while (s < end && (n = pl_py_space(s)) > 0 && s + n <= end) {
        s += n;
    }
    start = s;
    last = s;                   /* end of the last non-space character */
    while (s < end) {
        apr_uint32_t cp;

        n = u8_next(s, &cp);
        s += n;
        if (!py_isspace(cp)) {
            last = s;
        }
    }
    if (last > end) {
        last = end;
    }
    return apr_pstrmemdup(p, start, last - start);
}

const char *pl_py_repr(apr_pool_t *p, const char *s, apr_size_t maxchars)
{
    /* worst case: "\U0010ffff" (10 chars) per input byte, plus quotes */
    char *out = apr_palloc(p, strlen(s) * 10 + 3), *o = out;
    char quote = '\'';
    const char *q;
    apr_size_t nchars;

    if (strchr(s, '\'') && !strchr(s, '"')) {
        quote = '"';
    }
    *o++ = quote;
    for (q = s; *q; ) {
        apr_uint32_t cp;
        apr_size_t n = u8_next(q, &cp);

        if (cp == (apr_uint32_t)quote || cp == '\\') {
            *o++ = '\\';
            *o++ = (char)cp;
        }
        else if (cp == '\t' || cp == '\n' || cp == '\r') {
            *o++ = '\\';
            *o++ = cp == '\t' ? 't' : cp == '\n' ? 'n' : 'r';
        }
        else if (!py_isprintable(cp)) {
            if (cp <= 0xff) {
                o += apr_snprintf(o, 5, "\\x%02x", (unsigned)cp);
            }
            else if (cp <= 0xffff) {
                o += apr_snprintf(o, 7, "\\u%04x", (unsigned)cp);
            }
            else {
                o += apr_snprintf(o, 11, "\\U%08x", (unsigned)cp);
            }
        }
        else {
            memcpy(o, q, n);
            o += n;
        }
        q += n;
    }
    *o++ = quote;
    *o = '\0';

    if (maxchars) {
        /* "%.200R": keep the first maxchars characters of the repr */
        for (q = out, nchars = 0; *q && nchars < maxchars; nchars++) {
            apr_uint32_t cp;

            q += u8_next(q, &cp);
        }
        out[q - out] = '\0';
    }
    return out;
}

apr_status_t pl_py_int(apr_pool_t *p, const char *s, int *pneg,
                          const char **pdigits, const char **perr)
{
    apr_size_t len = strlen(s), ndigits = 0;
    char *ascii = apr_palloc(p, len + 1), *a = ascii, *digits, *d;
    const char *q;
    int neg = 0;
    char prev = '\0';

    /* int() of a str first maps Unicode whitespace to ' ' and decimal
     * digits to ASCII ones; anything else non-ASCII cannot be valid. */
    for (q = s; *q; ) {
        apr_uint32_t cp;
        int dv;

        q += u8_next(q, &cp);
        if (py_isspace(cp)) {
            *a++ = ' ';
        }
        else if ((dv = py_decimal(cp)) >= 0) {
            *a++ = (char)('0' + dv);
        }
        else if (cp < 0x80) {
            *a++ = (char)cp;
        }
        else {
            *a++ = '?';
        }
    }
    *a = '\0';

    digits = d = apr_palloc(p, (a - ascii) + 2);
    a = ascii;
    while (*a == ' ') {
        a++;
    }
    if (*a == '+' || *a == '-') {
        neg = (*a == '-');
        a++;
    }
    if (*a == '_') {
        goto invalid;
    }
    while (apr_isdigit(*a) || *a == '_') {
        if (*a == '_') {
            if (prev == '_') {
                goto invalid;
            }
        }
        else {
            ndigits++;
            if (d != digits || *a != '0') {
                *d++ = *a;      /* drop leading zeros */
            }
        }
        prev = *a++;
    }
    if (prev == '_') {
        goto invalid;
    }
    if (ndigits > PL_PY_INT_MAX_DIGITS) {
        *perr = apr_psprintf(p, "Exceeds the limit (%d digits) for integer "
                             "string conversion: value has %" APR_SIZE_T_FMT
                             " digits; use sys.set_int_max_str_digits() to "
                             "increase the limit", PL_PY_INT_MAX_DIGITS,
                             ndigits);
        return APR_EINVAL;
    }
    if (ndigits == 0) {
        goto invalid;
    }
    while (*a == ' ') {
        a++;
    }
    if (*a != '\0') {
        goto invalid;
    }
    if (d == digits) {
        *d++ = '0';
        neg = 0;
    }
    *d = '\0';
    *pneg = neg;
    *pdigits = digits;
    return APR_SUCCESS;

invalid:
    *perr = apr_pstrcat(p, "invalid literal for int() with base 10: ",
                        pl_py_repr(p, s, 200), NULL);
    return APR_EINVAL;
}
