/* Licensed under the Apache License, Version 2.0.
 *
 * fuzz_qs.c: query parameter values through every grammar of pl_qs.c.
 * The first byte picks the microversion (1.0 .. 1.39), the rest is the
 * value; every parser sees the same value.
 */
#include <stdlib.h>
#include <string.h>

#include "pl_mv.h"
#include "pl_qs.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_init();
    return 0;
}

/* every refusal must say why */
#define CHECK(call)                               \
    do {                                          \
        err = NULL;                               \
        if ((call) != APR_SUCCESS && err == NULL) \
            abort();                              \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s;
    apr_pool_t *p;
    const char *err, *code, *out, *digits, *suffix;
    apr_array_header_t *arr, *arr2, *values;
    pl_qs_traits_t *traits;
    pl_qs_member_of_t *mo;
    pl_qs_trait_name_t *tn;
    pl_qs_group_e which;
    int mv, neg, flag;

    if (size < 1) {
        return 0;
    }
    mv = PL_MV(1, data[0] % 40);
    p = fuzz_pool(data + 1, size - 1, &s);
    values = apr_array_make(p, 2, sizeof(const char *));
    APR_ARRAY_PUSH(values, const char *) = s;
    APR_ARRAY_PUSH(values, const char *) = s;

    (void)pl_py_space(s);
    (void)pl_py_u8_len(s);
    (void)pl_py_strip(p, s, strlen(s));
    (void)pl_py_repr(p, s, 0);
    (void)pl_py_repr(p, s, 200);
    if (size >= 9) {
        double d;
        char buf[PL_PY_FLOAT_REPR_SIZE];

        memcpy(&d, data + 1, sizeof(d)); /* any bit pattern */
        if (pl_py_float_repr(buf, d) >= sizeof(buf)) {
            abort();
        }
    }
    CHECK(pl_py_int(p, s, &neg, &digits, &err));
    CHECK(pl_qs_resources(p, s, &arr, &err));
    traits = pl_qs_traits_make(p);
    CHECK(pl_qs_traits_value(p, s, 1, 1, traits, &err));
    if (err == NULL) {
        arr = apr_array_make(p, 1, sizeof(const char *));
        pl_qs_traits_conflicts(p, traits, "", arr);
        (void)pl_qs_traits_conflict_msg(p, arr);
    }
    traits = pl_qs_traits_make(p);
    CHECK(pl_qs_traits_value(p, s, 0, 0, traits, &err));
    CHECK(pl_qs_required(p, mv, values, &traits, &err));
    CHECK(pl_qs_root_required(p, values, &traits, &err, &code));
    CHECK(pl_qs_member_of_value(p, s, &arr, &arr2, &err));
    CHECK(pl_qs_member_of(p, mv, "", values, &mo, &err));
    CHECK(pl_qs_member_of(p, mv, "1", values, &mo, &err));
    CHECK(pl_qs_in_tree(p, s, &out, &err));
    CHECK(pl_qs_same_subtree(p, values, &arr, &err));
    (void)pl_qs_group_key(mv, s, &which, &suffix);
    CHECK(pl_qs_trait_name(p, s, &tn, &err));
    CHECK(pl_qs_associated(p, s, &flag, &err));
    CHECK(pl_qs_once(p, s, 2, &err));
    apr_pool_destroy(p);
    return 0;
}
