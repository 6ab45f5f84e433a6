/* Licensed under the Apache License, Version 2.0.
 *
 * fuzz_mv.c: OpenStack-API-Version header values through pl_mv_parse(),
 * and the version it picks back through pl_mv_str().
 */
#include <stdlib.h>

#include "pl_mv.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s;
    apr_pool_t *p = fuzz_pool(data, size, &s);
    const char *err = NULL;
    int mv = -1;

    if (pl_mv_parse(p, s, &mv, &err) == APR_SUCCESS) {
        if (mv < PL_MV_MIN || mv > PL_MV_MAX) {
            abort(); /* a version outside the range was accepted */
        }
        (void)pl_mv_str(p, mv);
    }
    else if (err == NULL) {
        abort(); /* every refusal says why */
    }
    apr_pool_destroy(p);
    return 0;
}
