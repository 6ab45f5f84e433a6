/* Licensed under the Apache License, Version 2.0.
 *
 * fuzz.h: what every libFuzzer harness of t/fuzz/ shares: APR started
 * once, a pool per input (destroyed after it, so leaks and use after free
 * of pool memory show), the input as a NUL-terminated string.
 */
#ifndef PL_FUZZ_H
#define PL_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static apr_pool_t *fuzz_root;

/* At exit, before LeakSanitizer looks (its check was registered first):
 * run the root pool's cleanups (regfree, json_object_put). APR's pool
 * blocks are mmap'd, which LeakSanitizer does not scan, so what only pool
 * memory points to would otherwise be reported as leaked. */
static void fuzz_fini(void)
{
    apr_pool_destroy(fuzz_root);
    fuzz_root = NULL;
    apr_terminate();
}

static void fuzz_init(void)
{
    if (fuzz_root == NULL) {
        apr_initialize();
        apr_pool_create(&fuzz_root, NULL);
        atexit(fuzz_fini);
    }
}

/* A pool for one input and the input as a C string (cut at a NUL byte, as
 * httpd's strings are). */
static apr_pool_t *fuzz_pool(const uint8_t *data, size_t size, char **ps)
{
    apr_pool_t *p;

    fuzz_init();
    apr_pool_create(&p, fuzz_root);
    *ps = apr_pstrmemdup(p, (const char *)data, size);
    return p;
}

#endif
