/* Licensed under the Apache License, Version 2.0.
 *
 * pl_py.h: Python's string rules (pl_py.c): what str.isspace(),
 * str.strip(), len(), int() and repr() do with UTF-8 text, and the text
 * float.__repr__ (so json.dumps) writes, for parsers that must accept and
 * refuse exactly what upstream's Python does and answers that must be
 * byte for byte upstream's.
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

/** pl_py_u8_decode flag: a UTF-8-encoded surrogate is that code point
 * (text json-c decoded), not three undecodable bytes (raw input). */
#define PL_PY_U8_SURROGATES 0x01

/** pl_py_repr_n flag: a byte that starts no UTF-8 sequence is shown as
 * "\xNN" rather than as its surrogateescape character "\udcNN". */
#define PL_PY_REPR_BYTES 0x02

/**
 * Decode one character of the n bytes at s (n > 0) into *pcp; returns its
 * length in bytes (1 to 4). A byte that starts no valid sequence is one
 * character, U+DC00 + byte (Python's "surrogateescape"). flags:
 * PL_PY_U8_SURROGATES or 0.
 */
apr_size_t pl_py_u8_decode(const char *s, apr_size_t n, int flags,
                           apr_uint32_t *pcp);

/** str.isspace() of the one character cp (Python 3.11, Unicode 14). */
int pl_py_isspace(apr_uint32_t cp);

/**
 * Python's len() of the n bytes at s decoded as pl_py_u8_decode does.
 */
apr_int64_t pl_py_len(const char *s, apr_size_t n, int flags);

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
 * "%.200R" does (0: no limit). Undecodable bytes are surrogateescape
 * characters ('\udcff'); escapes follow str.isprintable() of Python 3.11
 * (Unicode 14.0).
 */
const char *pl_py_repr(apr_pool_t *p, const char *s, apr_size_t maxchars);

/**
 * Python's repr() of the n bytes at s, NULs included. flags:
 * PL_PY_U8_SURROGATES and/or PL_PY_REPR_BYTES (for text json-c decoded:
 * both), or 0 (as pl_py_repr).
 */
const char *pl_py_repr_n(apr_pool_t *p, const char *s, apr_size_t n, int flags);

/**
 * The start of pl_py_repr_n(p, s, n, flags): at most max bytes of it,
 * cut after the last whole character that fits with the closing quote
 * (which a cut text lacks), so that a huge string costs max bytes, not
 * ten times its size. The quote is the whole string's. *pcut (if not
 * NULL) is set to 1 when the repr was cut. max 0: no cut.
 */
const char *pl_py_repr_cut(apr_pool_t *p, const char *s, apr_size_t n,
                           int flags, apr_size_t max, int *pcut);

/** Room pl_py_float_repr needs: "-1.7976931348623157e+308" and a NUL. */
#define PL_PY_FLOAT_REPR_SIZE 32

/**
 * float.__repr__ of d, the text json.dumps writes for a float, into buf
 * (PL_PY_FLOAT_REPR_SIZE bytes): the fewest digits that read back as d,
 * fixed notation for decimal exponents -4 to 15 ("10.0", "0.0001",
 * "123456789012345.6"), else "1e+16", "1.5e-05"; "-0.0", "nan", "inf".
 * Returns the length written.
 */
apr_size_t pl_py_float_repr(char *buf, double d);

/**
 * The n bytes at s as json.dumps writes a str (ensure_ascii, its
 * default): quoted; '"', '\\', \n, \r, \t, \b, \f escaped by name; other
 * characters outside ' '..'~' as \u00e9, beyond U+FFFF as a surrogate
 * pair (\ud83d\ude00); '/' as it is. Text as json-c decoded it (see
 * PL_PY_U8_SURROGATES). Allocated from p; *plen (if not NULL) gets the
 * length.
 */
const char *pl_py_json_str(apr_pool_t *p, const char *s, apr_size_t n,
                           apr_size_t *plen);

/**
 * The JSONDecodeError text json.loads raises for the n bytes at s (valid
 * UTF-8), e.g. "Expecting ',' delimiter: line 1 column 8 (char 7)"
 * (positions in characters), or NULL when Python reads the text (NaN
 * and Infinity included) or it nests too deeply to follow.
 */
const char *pl_py_json_error(apr_pool_t *p, const char *s, apr_size_t n);

/**
 * The UnicodeDecodeError text bytes.decode('utf-8') raises for the n bytes
 * at s ("'utf-8' codec can't decode byte 0xed in position 13: invalid
 * continuation byte", positions in bytes), or NULL when they are UTF-8 as
 * Python reads it: no overlong forms, no encoded surrogates, nothing past
 * U+10FFFF (a NUL is a character).
 */
const char *pl_py_utf8_error(apr_pool_t *p, const char *s, apr_size_t n);

#endif /* PL_PY_H */
