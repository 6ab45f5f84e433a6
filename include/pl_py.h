/* Licensed under the Apache License, Version 2.0.
 *
 * pl_py.h: Python's string rules (pl_py.c): what str.isspace(),
 * str.strip(), int() and repr() do with UTF-8 text, for parsers that must
 * accept and refuse exactly what upstream's Python does.
 */
#ifndef PL_PY_H
#define PL_PY_H

#include <apr_pools.h>
#include "pl_status.h"

/* ------------------------------------------------------------------ */
/* Python string semantics                                             */
/* ------------------------------------------------------------------ */

/** Python's default limit on the digits int() converts (3.11). */
#define PL_PY_INT_MAX_DIGITS 4300

/**
 * If s starts with a character Python's str.isspace() accepts (encoded in
 * UTF-8), its length in bytes; 0 otherwise (also at the end of s).
 */
apr_size_t pl_py_space(const char *s);

/**
 * The length in bytes of the UTF-8 character at s: 1 to 4, 1 for a byte
 * that starts no valid sequence, 0 at the end of s.
 */
apr_size_t pl_py_u8_len(const char *s);

/**
 * The first len bytes of s without leading and trailing Python
 * whitespace (str.strip()), copied into p.
 */
const char *pl_py_strip(apr_pool_t *p, const char *s, apr_size_t len);

/**
 * Parse s as Python 3.11's int(s) does (base 10): surrounding Unicode
 * whitespace, one optional sign, Unicode decimal digits with single '_'
 * between digits, at most PL_PY_INT_MAX_DIGITS digits.
 * Returns APR_SUCCESS with *pneg (1 for a negative, non-zero value) and
 * *pdigits (the ASCII digits of the absolute value without leading zeros,
 * "0" for zero), or APR_EINVAL with *perr set to the text of the
 * ValueError int() raises ("invalid literal for int() with base 10: '...'"
 * with the repr cut to 200 characters, or "Exceeds the limit (4300
 * digits) for integer string conversion: ...").
 */
apr_status_t pl_py_int(apr_pool_t *p, const char *s, int *pneg,
                          const char **pdigits, const char **perr);

/**
 * Python's repr() of the UTF-8 string s, cut to maxchars characters as
 * "%.200R" does (0: no limit). Exact for characters up to U+00FF (all a
 * header decoded as latin-1 can hold); above that every character is
 * taken as printable, which Python agrees with for letters and symbols.
 */
const char *pl_py_repr(apr_pool_t *p, const char *s, apr_size_t maxchars);

#endif /* PL_PY_H */
