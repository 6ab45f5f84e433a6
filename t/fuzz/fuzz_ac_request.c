/* Licensed under the Apache License, Version 2.0.
 *
 * fuzz_ac_request.c: GET /allocation_candidates query strings through
 * pl_ac_request_parse() and pl_ac_request_names(). The first byte picks
 * the microversion (1.10 .. 1.39); the rest is split on '&' into
 * key=value pairs (not percent-decoded: the harness feeds the bytes the
 * decoder would give).
 */
#include <stdlib.h>

#include "pl_mv.h"
#include "pl_ac.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_init();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s, *pair, *state, *eq;
    apr_pool_t *p;
    apr_array_header_t *args, *rcs, *traits, *aggs, *trees;
    pl_ac_request_t *req = NULL;
    const char *err = NULL, *code = NULL;
    int mv;

    if (size < 1) {
        return 0;
    }
    mv = PL_MV(1, 10 + data[0] % 30);
    p = fuzz_pool(data + 1, size - 1, &s);
    args = apr_array_make(p, 8, sizeof(pl_ac_arg_t));
    for (pair = apr_strtok(s, "&", &state); pair;
         pair = apr_strtok(NULL, "&", &state)) {
        pl_ac_arg_t *a = apr_array_push(args);

        eq = strchr(pair, '=');
        if (eq) {
            *eq = '\0';
        }
        a->key = pair;
        a->value = eq ? eq + 1 : "";
    }
    if (pl_ac_request_parse(p, mv, args, &req, &err, &code) == APR_SUCCESS) {
        pl_ac_request_names(p, req, &rcs, &traits, &aggs, &trees);
    }
    else if (err == NULL) {
        abort(); /* every refusal says why */
    }
    apr_pool_destroy(p);
    return 0;
}
