/* Licensed under the Apache License, Version 2.0.
 *
 * pl_jsonschema_regex.c: the "pattern" and "patternProperties" of
 * schemas are Python re patterns; they run here as POSIX extended regular
 * expressions, translated once at compile time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_tables.h>

#include "pl_jsonschema_private.h"
#include "pl_py.h"

/* ------------------------------------------------------------------ */
/* Patterns: Python re syntax to POSIX ERE                             */

static int bracket_to_ere(sb_t *sb, const char **ps, const char **why)
{
    const char *s = *ps + 1;
    int neg = 0, rbr = 0, dash = 0, caret = 0, first = 1;
    sb_t body;

    pl_jsonschema_sb_init(&body, sb->p);
    if (*s == '^') {
        neg = 1;
        s++;
    }
    for (;; first = 0) {
        char c = *s;

        if (c == '\0') {
            *why = "unterminated character set";
            return 0;
        }
        if (c == ']' && !first) {
            s++;
            break;
        }
        if (c == ']') {
            rbr = 1;
            s++;
            continue;
        }
        if (c == '[' && (s[1] == ':' || s[1] == '.' || s[1] == '=')) {
            *why = "POSIX class syntax in a character set";
            return 0;
        }
        if (c == '-' && (first || s[1] == ']')) {
            dash = 1;
            s++;
            continue;
        }
        if (c == '\\') {
            char n = s[1];

            switch (n) {
            case 'd':
                pl_jsonschema_sb_add(&body, "0-9");
                break;
            case 'w':
                pl_jsonschema_sb_add(&body, "A-Za-z0-9_");
                break;
            case 's':
                pl_jsonschema_sb_add(&body, " \t\n\r\f\v");
                break;
            case 'n':
                pl_jsonschema_sb_addc(&body, '\n');
                break;
            case 't':
                pl_jsonschema_sb_addc(&body, '\t');
                break;
            case 'r':
                pl_jsonschema_sb_addc(&body, '\r');
                break;
            case 'f':
                pl_jsonschema_sb_addc(&body, '\f');
                break;
            case 'v':
                pl_jsonschema_sb_addc(&body, '\v');
                break;
            case ']':
                rbr = 1;
                break;
            case '-':
                dash = 1;
                break;
            case '^':
                caret = 1;
                break;
            case '\\':
                pl_jsonschema_sb_addc(&body, '\\');
                break;
            default:
                if (n != '\0' && strchr(".$|()[{}*+?/&~#%!\"',:;<=>@`", n)) {
                    pl_jsonschema_sb_addc(&body, n);
                    break;
                }
                *why = "unsupported escape in a character set";
                return 0;
            }
            s += 2;
            continue;
        }
        pl_jsonschema_sb_addc(&body, c);
        s++;
    }
    if (caret && !neg && !rbr && body.len == 0 && !dash) {
        pl_jsonschema_sb_add(sb, "\\^");
        *ps = s;
        return 1;
    }
    pl_jsonschema_sb_addc(sb, '[');
    if (neg) {
        pl_jsonschema_sb_addc(sb, '^');
    }
    if (rbr) {
        pl_jsonschema_sb_addc(sb, ']');
    }
    pl_jsonschema_sb_add(sb, body.buf);
    if (caret) {
        pl_jsonschema_sb_addc(sb, '^');
    }
    if (dash) {
        pl_jsonschema_sb_addc(sb, '-');
    }
    pl_jsonschema_sb_addc(sb, ']');
    *ps = s;
    return 1;
}

const char *pl_jsonschema_py_to_ere(apr_pool_t *p, const char *py,
                                    const char **why)
{
    const char *s = py;
    sb_t sb;

    pl_jsonschema_sb_init(&sb, p);
    while (*s) {
        char c = *s;

        if (c == '\\') {
            char n = s[1];

            switch (n) {
            case 'd':
                pl_jsonschema_sb_add(&sb, "[0-9]");
                break;
            case 'D':
                pl_jsonschema_sb_add(&sb, "[^0-9]");
                break;
            case 'w':
                pl_jsonschema_sb_add(&sb, "[A-Za-z0-9_]");
                break;
            case 'W':
                pl_jsonschema_sb_add(&sb, "[^A-Za-z0-9_]");
                break;
            case 's':
                pl_jsonschema_sb_add(&sb, "[ \t\n\r\f\v]");
                break;
            case 'S':
                pl_jsonschema_sb_add(&sb, "[^ \t\n\r\f\v]");
                break;
            case 'n':
                pl_jsonschema_sb_addc(&sb, '\n');
                break;
            case 't':
                pl_jsonschema_sb_addc(&sb, '\t');
                break;
            case 'r':
                pl_jsonschema_sb_addc(&sb, '\r');
                break;
            case 'f':
                pl_jsonschema_sb_addc(&sb, '\f');
                break;
            case 'v':
                pl_jsonschema_sb_addc(&sb, '\v');
                break;
            default:
                if (n != '\0' && strchr(".^$|()[]{}*+?\\", n)) {
                    pl_jsonschema_sb_addc(&sb, '\\');
                    pl_jsonschema_sb_addc(&sb, n);
                    break;
                }
                if (n != '\0' && strchr("-/&~#%!\"',:;<=>@`_ ", n)) {
                    pl_jsonschema_sb_addc(&sb, n);
                    break;
                }
                *why = "unsupported escape";
                return NULL;
            }
            s += 2;
            continue;
        }
        if (c == '[') {
            if (!bracket_to_ere(&sb, &s, why)) {
                return NULL;
            }
            continue;
        }
        if (c == '.') {
            /* Python's "." does not match a newline */
            pl_jsonschema_sb_add(&sb, "[^\n]");
            s++;
            continue;
        }
        if (c == '(' && s[1] == '?') {
            if (s[2] != ':') {
                *why = "unsupported group extension";
                return NULL;
            }
            pl_jsonschema_sb_addc(&sb, '(');
            s += 3;
            continue;
        }
        if ((c == '*' || c == '+' || c == '?' || c == '}') && s[1] == '?') {
            /* lazy and greedy repeats find the same matches for search() */
            pl_jsonschema_sb_addc(&sb, c);
            s += 2;
            continue;
        }
        pl_jsonschema_sb_addc(&sb, c);
        s++;
    }
    return sb.buf;
}
