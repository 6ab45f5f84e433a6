/* Licensed under the Apache License, Version 2.0.
 *
 * pl_schemas.h: the JSON schema texts of the API (pl_schemas.c). Every
 * text is compiled once at start-up (pl_schema_compile_all); a text that
 * does not compile is a startup error.
 */
#ifndef PL_SCHEMAS_H
#define PL_SCHEMAS_H

extern const char PL_SCHEMA_AGGREGATE_PUT_SCHEMA_V1_1[];
extern const char PL_SCHEMA_AGGREGATE_PUT_SCHEMA_V1_19[];
extern const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_0[];
extern const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_8[];
extern const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_12[];
extern const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_28[];
extern const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_34[];
extern const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_38[];
extern const char PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_13[];
extern const char PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_28[];
extern const char PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_34[];
extern const char PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_38[];
extern const char PL_SCHEMA_INVENTORY_PUT_ONE_SCHEMA[];
extern const char PL_SCHEMA_INVENTORY_POST_SCHEMA[];
extern const char PL_SCHEMA_INVENTORY_PUT_ALL_SCHEMA[];
extern const char PL_SCHEMA_RESHAPER_SCHEMA_1_30[];
extern const char PL_SCHEMA_RESHAPER_SCHEMA_1_34[];
extern const char PL_SCHEMA_RESHAPER_SCHEMA_1_38[];
extern const char PL_SCHEMA_RC_RC_SCHEMA[];
extern const char PL_SCHEMA_RP_POST_SCHEMA[];
extern const char PL_SCHEMA_RP_POST_SCHEMA_1_14[];
extern const char PL_SCHEMA_RP_PUT_SCHEMA[];
extern const char PL_SCHEMA_RP_PUT_SCHEMA_1_14[];
extern const char PL_SCHEMA_RP_LIST_QS[];
extern const char PL_SCHEMA_RP_LIST_QS_1_3[];
extern const char PL_SCHEMA_RP_LIST_QS_1_4[];
extern const char PL_SCHEMA_RP_LIST_QS_1_14[];
extern const char PL_SCHEMA_RP_LIST_QS_1_18[];
extern const char PL_SCHEMA_TRAIT_CUSTOM_TRAIT_SCHEMA[];
extern const char PL_SCHEMA_TRAIT_SET_TRAITS_SCHEMA[];
extern const char PL_SCHEMA_TRAIT_LIST_TRAITS_QS_SCHEMA[];
extern const char PL_SCHEMA_USAGE_QS_SCHEMA_V1_9[];
extern const char PL_SCHEMA_USAGE_QS_SCHEMA_V1_38[];
extern const char PL_SCHEMA_AC_QS_1_10[];
extern const char PL_SCHEMA_AC_QS_1_16[];
extern const char PL_SCHEMA_AC_QS_1_17[];
extern const char PL_SCHEMA_AC_QS_1_21[];
extern const char PL_SCHEMA_AC_QS_1_25[];
extern const char PL_SCHEMA_AC_QS_1_31[];
extern const char PL_SCHEMA_AC_QS_1_33[];
extern const char PL_SCHEMA_AC_QS_1_35[];
extern const char PL_SCHEMA_AC_QS_1_36[];

/** Every text above, NULL-terminated: what start-up compiles. */
extern const char *const pl_schemas_all[];

#endif
