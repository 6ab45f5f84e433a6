/* Licensed under the Apache License, Version 2.0.
 *
 * json-cost.c: what json-c spends building a request body of each JSON
 * shape, parsed as pl_read_json parses it (json_tokener, depth 64,
 * strict, UTF-8 checked), beside what pl_json_scan prices it at. Each
 * shape is a list (or an object) of one element repeated up to a size;
 * each case runs in a child process of its own, which counts every byte
 * malloc hands out (glibc's chunks, their 8-byte headers included) and
 * reads its peak RSS (VmHWM, reset before the parse).
 *
 *   make build/json-cost
 *   build/json-cost [-s MB]... [FILE...]
 *
 * Without FILE: every shape at each size (default -s 1 -s 8); with:
 * each file's text. Prints per case: elements, body bytes, the peak of
 * live malloc bytes during the parse and the RSS grown (both with the
 * body), the peak per element, the price pl_json_scan gives, the larger
 * of the two measures / the price (at most 1 for the price to bound the
 * parse) and the price per body byte (what httpd/pl_req_body.c compares
 * with JSON_COST_FACTOR). docs/reliability.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <unistd.h>
#include <sys/wait.h>

#include <json-c/json.h>
#include <apr_general.h>
#include <apr_pools.h>

#include "pl_json_scan.h"

/* glibc's own allocator, under the names this file replaces */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static size_t live, peak;
static int counting;

/* a chunk's cost: what it may hold and its header */
static size_t chunk(void *p)
{
    return p ? malloc_usable_size(p) + 8 : 0;
}

static void grew(size_t n)
{
    live += n;
    if (live > peak) {
        peak = live;
    }
}

void *malloc(size_t n)
{
    void *p = __libc_malloc(n);

    if (counting) {
        grew(chunk(p));
    }
    return p;
}

void *calloc(size_t n, size_t m)
{
    void *p = __libc_calloc(n, m);

    if (counting) {
        grew(chunk(p));
    }
    return p;
}

/* counted as a new block next to the old until the old is gone: the
 * worst case, a copy (a large one may be moved by mremap instead) */
void *realloc(void *old, size_t n)
{
    size_t was = counting ? chunk(old) : 0;
    void *p = __libc_realloc(old, n);

    if (counting && p) {
        grew(chunk(p));
        live -= was;
    }
    return p;
}

void free(void *p)
{
    if (counting && p) {
        live -= chunk(p);
    }
    __libc_free(p);
}

static long vm_hwm_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;

    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kb = atol(line + 6);
        }
    }
    if (f) {
        fclose(f);
    }
    return kb;
}

static void reset_hwm(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");

    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

/* A shape: an element's text (%s: a short key of the element's number,
 * for members of one object), in a list "[e,e,...]" or an object
 * "{e,e,...}"; NULL: one of the elements made in body_of. */
typedef struct {
    const char *name;
    const char *elem;
    int object;
} shape_t;

static const shape_t shapes[] = {
    { "ints [1,...]", "1", 0 },
    { "big ints [-1234567890123456789,...]", "-1234567890123456789", 0 },
    { "doubles [0.5,...]", "0.5", 0 },
    { "doubles [1e5,...]", "1e5", 0 },
    { "NaN [NaN,...]", "NaN", 0 },
    { "true [true,...]", "true", 0 },
    { "false [false,...]", "false", 0 },
    { "null [null,...]", "null", 0 },
    { "strings [\"\",...]", "\"\"", 0 },
    { "strings [\"a\",...]", "\"a\"", 0 },
    { "strings of 23", "\"aaaaaaaaaaaaaaaaaaaaaaa\"", 0 },
    { "strings of 24", "\"aaaaaaaaaaaaaaaaaaaaaaaa\"", 0 },
    { "uuids (36)", "\"6f0b3b1c-7f3c-4f7e-9d1e-2c1d6c0f4a11\"", 0 },
    { "strings of 100", NULL, 0 },
    { "escapes [\"\\u00e9\",...]", "\"\\u00e9\"", 0 },
    { "empty lists [[],...]", "[]", 0 },
    { "lists of one [[1],...]", "[1]", 0 },
    { "empty objects [{},...]", "{}", 0 },
    { "objects of one [{\"a\":1},...]", "{\"a\":1}", 0 },
    { "objects of one [{\"a\":null},...]", "{\"a\":null}", 0 },
    { "objects of 12 keys", NULL, 0 },
    { "keys {\"k\":1,...}", "\"%s\":1", 1 },
    { "keys {\"k\":null,...}", "\"%s\":null", 1 },
    { "keys {\"k\":\"\",...}", "\"%s\":\"\"", 1 },
    { "keys {\"k\":{},...}", "\"%s\":{}", 1 },
    { "keys {\"k\":[],...}", "\"%s\":[]", 1 },
    { "same key {\"a\":1,\"a\":1,...}", "\"a\":1", 1 },
    { "nested lists 2 [[[1]],...]", NULL, 0 },
    { "nested lists 4", NULL, 0 },
    { "nested lists 8", NULL, 0 },
    { "nested lists 16", NULL, 0 },
    { "nested lists 32", NULL, 0 },
    { "nested lists 62", NULL, 0 },
    { "nested objects 2 [{\"a\":{\"a\":1}},...]", NULL, 0 },
    { "nested objects 8", NULL, 0 },
    { "nested objects 62", NULL, 0 },
    { "nested mixed 62 [{\"a\":[{\"a\":[...]}]}]", NULL, 0 },
    { "one string", NULL, 0 },
};

/* the shortest distinct key of n: letters and digits, base 62 */
static void key_of(unsigned long n, char *out)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz"
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    char tmp[16];
    int i = 0, j = 0;

    do {
        tmp[i++] = digits[n % 62];
        n /= 62;
    } while (n);
    while (i) {
        out[j++] = tmp[--i];
    }
    out[j] = '\0';
}

/* the n-th element of shape s (one made here when s->elem is NULL) */
static void elem_of(const shape_t *s, unsigned long n, size_t size, char *elem,
                    size_t room)
{
    char key[16];

    if (strncmp(s->name, "nested", 6) == 0) {
        /* d levels in the outer list (62: json-c's 64 levels, the 1 in the last), of
         * lists, objects of one key or both in turn */
        int d = atoi(strpbrk(s->name, "0123456789")), i;
        char kind = s->name[7]; /* l, o or m */
        size_t at = 0;

        for (i = 0; i < d; i++) {
            int list = kind == 'l' || (kind == 'm' && i % 2);

            at += (size_t)snprintf(elem + at, room - at, "%s",
                                   list ? "[" : "{\"a\":");
        }
        elem[at++] = '1';
        for (i = d - 1; i >= 0; i--) {
            int list = kind == 'l' || (kind == 'm' && i % 2);

            elem[at++] = list ? ']' : '}';
        }
        elem[at] = '\0';
    }
    else if (strncmp(s->name, "one string", 10) == 0) {
        elem[0] = '\0'; /* made whole in body_of */
        (void)size;
    }
    else if (strncmp(s->name, "objects of 12", 13) == 0) {
        snprintf(elem, room,
                 "{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,"
                 "\"g\":1,\"h\":1,\"i\":1,\"j\":1,\"k\":1,\"l\":1}");
    }
    else if (s->elem == NULL) {
        elem[0] = '"';
        memset(elem + 1, 'a', 100);
        strcpy(elem + 101, "\"");
    }
    else if (s->object) {
        key_of(n, key);
        snprintf(elem, room, s->elem, key);
    }
    else {
        snprintf(elem, room, "%s", s->elem);
    }
}

/* shape s up to size bytes: its text, *pn its elements */
static char *body_of(const shape_t *s, size_t size, size_t *plen,
                     unsigned long *pn)
{
    char *buf = __libc_malloc(size + 256);
    char elem[512];
    size_t len = 1;
    unsigned long n = 0;

    buf[0] = s->object ? '{' : '[';
    if (strncmp(s->name, "one string", 10) == 0) {
        buf[len++] = '"';
        memset(buf + len, 'a', size - 4);
        len += size - 4;
        buf[len++] = '"';
        n = 1;
    }
    for (; n == 0 || strncmp(s->name, "one string", 10) != 0;) {
        size_t el;

        elem_of(s, n, size, elem, sizeof(elem));
        el = strlen(elem);
        if (len + el + 2 > size) {
            break;
        }
        if (n) {
            buf[len++] = ',';
        }
        memcpy(buf + len, elem, el);
        len += el;
        n++;
    }
    buf[len++] = s->object ? '}' : ']';
    buf[len] = '\0';
    *plen = len;
    *pn = n;
    return buf;
}

/* Parse the len bytes at body (n elements, 0 if unknown), print a row */
static void one_case(const char *name, char *body, size_t len, unsigned long n)
{
    json_tokener *tok;
    json_object *doc;
    pl_json_scan_t scan;
    apr_pool_t *p;
    long hwm0, hwm1;
    size_t grown;

    apr_pool_create(&p, NULL);
    pl_json_scan(p, body, len, 64, &scan);
    /* the heap as a child has it before the body arrives */
    malloc_trim(0);
    reset_hwm();
    hwm0 = vm_hwm_kb();
    live = peak = 0;
    counting = 1;
    tok = json_tokener_new_ex(64);
    json_tokener_set_flags(tok,
                           JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    doc = json_tokener_parse_ex(tok, body, (int)len + 1);
    if (json_tokener_get_error(tok) != json_tokener_success) {
        fprintf(stderr, "%s: %s\n", name,
                json_tokener_error_desc(json_tokener_get_error(tok)));
    }
    json_tokener_free(tok);
    counting = 0;
    hwm1 = vm_hwm_kb();
    /* the larger of what malloc handed out and what the RSS grew by
     * (freed pieces too small to reuse), with the body: all priced */
    grown = (size_t)(hwm1 - hwm0) * 1024 + len;
    printf("%-36.36s %9lu %9zu %11zu %7.1f %7.1f %11" APR_UINT64_T_FMT
           " %5.2f %6.1f\n",
           name, n, len, peak, (double)(hwm1 - hwm0) / 1024.0,
           n ? (double)peak / (double)n : 0.0, scan.cost,
           (double)(grown > peak + len ? grown : peak + len) /
               (double)scan.cost,
           (double)scan.cost / (double)len);
    fflush(stdout);
    json_object_put(doc);
    apr_pool_destroy(p);
}

/* the whole file at path, or NULL */
static char *read_file(const char *path, size_t *plen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;

    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = __libc_malloc((size_t)n + 1)) &&
        fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = '\0';
        *plen = (size_t)n;
    }
    else if (buf) {
        __libc_free(buf);
        buf = NULL;
    }
    if (f) {
        fclose(f);
    }
    return buf;
}

static void in_child(const char *name, const shape_t *s, double mb)
{
    pid_t pid;

    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        size_t len;
        unsigned long n = 0;
        char *body = s ? body_of(s, (size_t)(mb * 1024 * 1024), &len, &n)
                       : read_file(name, &len);

        if (body == NULL) {
            fprintf(stderr, "%s: cannot read\n", name);
            _exit(1);
        }
        one_case(s                    ? s->name
                 : strrchr(name, '/') ? strrchr(name, '/') + 1
                                      : name,
                 body, len, n);
        _exit(0);
    }
    waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
    double sizes[16];
    int nsizes = 0, files = 0, a;
    size_t i;

    apr_initialize();
    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-s") == 0 && a + 1 < argc && nsizes < 16) {
            sizes[nsizes++] = atof(argv[++a]);
        }
        else {
            files++;
        }
    }
    if (nsizes == 0) {
        sizes[nsizes++] = 1;
        sizes[nsizes++] = 8;
    }
    printf("%-36s %9s %9s %11s %7s %7s %11s %5s %6s\n", "shape", "elements",
           "bytes", "peak B", "RSS MB", "B/elem", "priced B", "m/p", "p/byte");
    for (a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-s") == 0) {
            a++;
        }
        else {
            in_child(argv[a], NULL, 0);
        }
    }
    for (i = 0; files == 0 && i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        for (a = 0; a < nsizes; a++) {
            in_child(NULL, &shapes[i], sizes[a]);
        }
    }
    apr_terminate();
    return 0;
}
