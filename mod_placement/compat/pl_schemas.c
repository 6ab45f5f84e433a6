/* Licensed under the Apache License, Version 2.0.
 *
 * pl_schemas.c: every JSON schema the API validates bodies and query
 * strings with, as JSON text in upstream's key order (placement's
 * schemas/<family>.py, one text per microversion where it changes). Pure: no
 * httpd, so the unit tests compile each one (t/unit/test_schemas.c) and
 * pl_req.c compiles them all at start-up.
 */
#include <stddef.h>

#include "pl_schemas.h"

/* schemas/allocation.py pieces shared by allocations and the reshaper */
#define PL_SCH_UUID_PAT "\"^[0-9a-fA-F-]{36}$\""
#define PL_SCH_RC_PAT "\"^[A-Z0-9_]+$\""

#define PL_SCH_RESOURCES                                                   \
    "{\"type\": \"object\", \"minProperties\": 1, \"patternProperties\": " \
    "{" PL_SCH_RC_PAT ": {\"type\": \"integer\", \"minimum\": 1}}, "       \
    "\"additionalProperties\": false}"

#define PL_SCH_ID_STRING \
    "{\"type\": \"string\", \"minLength\": 1, \"maxLength\": 255}"

/* ALLOCATION_SCHEMA_V1_12 with allocations' minProperties as given,
 * then extra properties and extra required names */
#define PL_SCH_DICT(minprops, props, req)                                   \
    "{\"type\": \"object\", \"properties\": {\"allocations\": {"            \
    "\"type\": \"object\", \"minProperties\": " minprops ", "               \
    "\"patternProperties\": {" PL_SCH_UUID_PAT ": {\"type\": \"object\", "  \
    "\"properties\": {\"generation\": {\"type\": \"integer\"}, "            \
    "\"resources\": " PL_SCH_RESOURCES "}, \"required\": [\"resources\"], " \
    "\"additionalProperties\": false}}, \"additionalProperties\": false}, " \
    "\"project_id\": " PL_SCH_ID_STRING                                     \
    ", \"user_id\": " PL_SCH_ID_STRING props                                \
    "}, \"additionalProperties\": false, \"required\": "                    \
    "[\"allocations\", \"project_id\", \"user_id\"" req "]}"

#define PL_SCH_GEN_PROP                                               \
    ", \"consumer_generation\": {\"type\": [\"integer\", \"null\"], " \
    "\"additionalProperties\": false}"
#define PL_SCH_GEN_REQ ", \"consumer_generation\""
#define PL_SCH_MAPPINGS_PROP                                         \
    ", \"mappings\": {\"type\": \"object\", \"minProperties\": 1, "  \
    "\"patternProperties\": {\"[a-zA-Z0-9_-]{1,64}\": {\"type\": "   \
    "\"array\", \"minItems\": 1, \"items\": {\"type\": \"string\", " \
    "\"format\": \"uuid\"}}}}"
#define PL_SCH_TYPE_PROP                                                      \
    ", \"consumer_type\": {\"type\": \"string\", \"pattern\": " PL_SCH_RC_PAT \
    ", \"minLength\": 1, \"maxLength\": 255}"
#define PL_SCH_TYPE_REQ ", \"consumer_type\""

#define PL_SCH_DICT_1_12 PL_SCH_DICT("1", "", "")
#define PL_SCH_DELETABLE PL_SCH_DICT("0", "", "")
#define PL_SCH_DICT_1_28 PL_SCH_DICT("0", PL_SCH_GEN_PROP, PL_SCH_GEN_REQ)
#define PL_SCH_DICT_1_34 \
    PL_SCH_DICT("0", PL_SCH_GEN_PROP PL_SCH_MAPPINGS_PROP, PL_SCH_GEN_REQ)
#define PL_SCH_DICT_1_38                                                    \
    PL_SCH_DICT("0", PL_SCH_GEN_PROP PL_SCH_MAPPINGS_PROP PL_SCH_TYPE_PROP, \
                PL_SCH_GEN_REQ PL_SCH_TYPE_REQ)

/* POST /allocations: consumer uuid -> one consumer's document */
#define PL_SCH_POST(minprops, each)                            \
    "{\"type\": \"object\", \"minProperties\": " minprops ", " \
    "\"additionalProperties\": false, \"patternProperties\": " \
    "{" PL_SCH_UUID_PAT ": " each "}}"

/* ---- api_aggregate.c ---- */
#define AGGREGATES_LIST                                         \
    "{\"type\": \"array\","                                     \
    " \"items\": {\"type\": \"string\", \"format\": \"uuid\"}," \
    " \"uniqueItems\": true}"

const char PL_SCHEMA_AGGREGATE_PUT_SCHEMA_V1_1[] = AGGREGATES_LIST;

const char PL_SCHEMA_AGGREGATE_PUT_SCHEMA_V1_19[] =
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"aggregates\": " AGGREGATES_LIST ","
    "   \"resource_provider_generation\": {\"type\": \"integer\"}},"
    " \"required\": [\"aggregates\", \"resource_provider_generation\"],"
    " \"additionalProperties\": false}";
#undef AGGREGATES_LIST

/* ---- api_allocation.c ---- */
#define SCH_LIST_ITEMS                                                  \
    "{\"type\": \"array\", \"minItems\": 1, \"items\": {\"type\": "     \
    "\"object\", \"properties\": {\"resource_provider\": {\"type\": "   \
    "\"object\", \"properties\": {\"uuid\": {\"type\": \"string\", "    \
    "\"format\": \"uuid\"}}, \"additionalProperties\": false, "         \
    "\"required\": [\"uuid\"]}, \"resources\": " PL_SCH_RESOURCES "}, " \
    "\"required\": [\"resource_provider\", \"resources\"], "            \
    "\"additionalProperties\": false}}"

const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_0[] =
    "{\"type\": \"object\", \"properties\": {\"allocations\": " SCH_LIST_ITEMS
    "}, \"required\": [\"allocations\"], "
    "\"additionalProperties\": false}";
const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_8[] =
    "{\"type\": \"object\", \"properties\": {\"allocations\": " SCH_LIST_ITEMS
    ", \"project_id\": " PL_SCH_ID_STRING ", \"user_id\": " PL_SCH_ID_STRING
    "}, \"required\": [\"allocations\", \"project_id\", "
    "\"user_id\"], \"additionalProperties\": false}";
const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_12[] = PL_SCH_DICT_1_12;
const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_28[] = PL_SCH_DICT_1_28;
const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_34[] = PL_SCH_DICT_1_34;
const char PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_38[] = PL_SCH_DICT_1_38;

const char PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_13[] = PL_SCH_POST(
    "1", PL_SCH_DELETABLE);
const char PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_28[] = PL_SCH_POST(
    "1", PL_SCH_DICT_1_28);
const char PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_34[] = PL_SCH_POST(
    "1", PL_SCH_DICT_1_34);
const char PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_38[] = PL_SCH_POST(
    "1", PL_SCH_DICT_1_38);
#undef SCH_LIST_ITEMS

/* ---- api_inventory.c ---- */
#define INV_PROPERTIES                                                 \
    "\"resource_provider_generation\": {\"type\": \"integer\"},"       \
    " \"total\": {\"type\": \"integer\", \"maximum\": 2147483647,"     \
    "             \"minimum\": 1},"                                    \
    " \"reserved\": {\"type\": \"integer\", \"maximum\": 2147483647,"  \
    "                \"minimum\": 0},"                                 \
    " \"min_unit\": {\"type\": \"integer\", \"maximum\": 2147483647,"  \
    "                \"minimum\": 1},"                                 \
    " \"max_unit\": {\"type\": \"integer\", \"maximum\": 2147483647,"  \
    "                \"minimum\": 1},"                                 \
    " \"step_size\": {\"type\": \"integer\", \"maximum\": 2147483647," \
    "                 \"minimum\": 1},"                                \
    " \"allocation_ratio\": {\"type\": \"number\","                    \
    "                        \"maximum\": 3.40282e+38}"
#define RC_PATTERN "^[A-Z0-9_]+$"

/* BASE_INVENTORY_SCHEMA: PUT of one inventory */
const char PL_SCHEMA_INVENTORY_PUT_ONE_SCHEMA[] =
    "{\"type\": \"object\","
    " \"properties\": {" INV_PROPERTIES "},"
    " \"required\": [\"total\", \"resource_provider_generation\"],"
    " \"additionalProperties\": false}";

/* POST_INVENTORY_SCHEMA */
const char PL_SCHEMA_INVENTORY_POST_SCHEMA[] =
    "{\"type\": \"object\","
    " \"properties\": {" INV_PROPERTIES ","
    "   \"resource_class\": {\"type\": \"string\","
    "                        \"pattern\": \"" RC_PATTERN "\"}},"
    " \"required\": [\"total\", \"resource_class\"],"
    " \"additionalProperties\": false}";

/* PUT_INVENTORY_SCHEMA */
const char PL_SCHEMA_INVENTORY_PUT_ALL_SCHEMA[] =
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"resource_provider_generation\": {\"type\": \"integer\"},"
    "   \"inventories\": {"
    "     \"type\": \"object\","
    "     \"patternProperties\": {"
    "       \"" RC_PATTERN "\": {"
    "         \"type\": \"object\","
    "         \"properties\": {" INV_PROPERTIES "},"
    "         \"required\": [\"total\"],"
    "         \"additionalProperties\": false}}}},"
    " \"required\": [\"resource_provider_generation\", \"inventories\"],"
    " \"additionalProperties\": false}";
#undef INV_PROPERTIES
#undef RC_PATTERN

/* ---- api_reshaper.c ---- */
#define SCH_INT_MAX(min) \
    "{\"type\": \"integer\", \"maximum\": 2147483647, \"minimum\": " min "}"

/* inventory.PUT_INVENTORY_SCHEMA */
#define SCH_PUT_INVENTORY                                                      \
    "{\"type\": \"object\", \"properties\": {"                                 \
    "\"resource_provider_generation\": {\"type\": \"integer\"}, "              \
    "\"inventories\": {\"type\": \"object\", \"patternProperties\": "          \
    "{" PL_SCH_RC_PAT ": {\"type\": \"object\", \"properties\": {"             \
    "\"resource_provider_generation\": {\"type\": \"integer\"}, "              \
    "\"total\": " SCH_INT_MAX("1") ", \"reserved\": " SCH_INT_MAX(             \
        "0") ", "                                                              \
             "\"min_unit\": " SCH_INT_MAX("1") ", \"max_unit\": " SCH_INT_MAX( \
                 "1") ", \"step_size\": " SCH_INT_MAX("1") ", "                \
                                                           "\"allocation_"     \
                                                           "ratio\": {"        \
                                                           "\"type\": "        \
                                                           "\"number\", "      \
                                                           "\"maximum\": "     \
                                                           "3.40282e+38}}, "   \
                                                           "\"required\": "    \
                                                           "[\"total\"], "     \
                                                           "\"additionalPrope" \
                                                           "rties\": "         \
                                                           "false}}}}, "       \
                                                           "\"required\": "    \
                                                           "[\"resource_"      \
                                                           "provider_"         \
                                                           "generation\", "    \
                                                           "\"inventories\"]," \
                                                           " "                 \
                                                           "\"additionalPrope" \
                                                           "rties\": false}"

#define SCH_RESHAPER(allocs)                                           \
    "{\"type\": \"object\", \"properties\": {\"inventories\": {"       \
    "\"type\": \"object\", \"patternProperties\": {" PL_SCH_UUID_PAT   \
    ": " SCH_PUT_INVENTORY "}, \"minProperties\": 1, "                 \
    "\"additionalProperties\": false}, \"allocations\": " allocs "}, " \
    "\"required\": [\"inventories\", \"allocations\"], "               \
    "\"additionalProperties\": false}"

const char PL_SCHEMA_RESHAPER_SCHEMA_1_30[] = SCH_RESHAPER(
    PL_SCH_POST("0", PL_SCH_DICT_1_28));
const char PL_SCHEMA_RESHAPER_SCHEMA_1_34[] = SCH_RESHAPER(
    PL_SCH_POST("0", PL_SCH_DICT_1_34));
const char PL_SCHEMA_RESHAPER_SCHEMA_1_38[] = SCH_RESHAPER(
    PL_SCH_POST("0", PL_SCH_DICT_1_38));
#undef SCH_INT_MAX
#undef SCH_PUT_INVENTORY
#undef SCH_RESHAPER

/* ---- api_resource_class.c ---- */
const char PL_SCHEMA_RC_RC_SCHEMA[] =
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"name\": {\"type\": \"string\","
    "              \"pattern\": \"^CUSTOM_[A-Z0-9_]+$\","
    "              \"maxLength\": 255}},"
    " \"required\": [\"name\"],"
    " \"additionalProperties\": false}";

/* ---- api_resource_provider.c ---- */
#define RP_NAME_SCHEMA "\"name\": {\"type\": \"string\", \"maxLength\": 200}"
#define RP_UUID_SCHEMA "{\"type\": \"string\", \"format\": \"uuid\"}"
#define RP_PARENT_SCHEMA                                          \
    "\"parent_provider_uuid\": {\"anyOf\": [" RP_UUID_SCHEMA ", " \
    "{\"type\": \"null\"}]}"
#define RP_BODY(props)                                     \
    "{\"type\": \"object\", \"properties\": {" props "}, " \
    "\"required\": [\"name\"], \"additionalProperties\": false}"

const char PL_SCHEMA_RP_POST_SCHEMA[] = RP_BODY(RP_NAME_SCHEMA
                                                ", \"uuid\": " RP_UUID_SCHEMA);
/* 1.14+: parent_provider_uuid */
const char PL_SCHEMA_RP_POST_SCHEMA_1_14[] = RP_BODY(
    RP_NAME_SCHEMA ", \"uuid\": " RP_UUID_SCHEMA ", " RP_PARENT_SCHEMA);
const char PL_SCHEMA_RP_PUT_SCHEMA[] = RP_BODY(RP_NAME_SCHEMA);
const char PL_SCHEMA_RP_PUT_SCHEMA_1_14[] = RP_BODY(RP_NAME_SCHEMA
                                                    ", " RP_PARENT_SCHEMA);

/* Query strings of GET /resource_providers, one more key per version. */
#define QS_1_0 "\"name\": {\"type\": \"string\"}, \"uuid\": " RP_UUID_SCHEMA
#define QS_1_3 QS_1_0 ", \"member_of\": {\"type\": \"string\"}"
#define QS_1_4 QS_1_3 ", \"resources\": {\"type\": \"string\"}"
#define QS_1_14 QS_1_4 ", \"in_tree\": " RP_UUID_SCHEMA
#define QS_1_18 QS_1_14 ", \"required\": {\"type\": \"string\"}"
#define QS(props)                                          \
    "{\"type\": \"object\", \"properties\": {" props "}, " \
    "\"additionalProperties\": false}"

const char PL_SCHEMA_RP_LIST_QS[] = QS(QS_1_0);
const char PL_SCHEMA_RP_LIST_QS_1_3[] = QS(QS_1_3);   /* member_of */
const char PL_SCHEMA_RP_LIST_QS_1_4[] = QS(QS_1_4);   /* resources */
const char PL_SCHEMA_RP_LIST_QS_1_14[] = QS(QS_1_14); /* in_tree */
const char PL_SCHEMA_RP_LIST_QS_1_18[] = QS(QS_1_18); /* required */
#undef RP_NAME_SCHEMA
#undef RP_UUID_SCHEMA
#undef RP_PARENT_SCHEMA
#undef RP_BODY
#undef QS_1_0
#undef QS_1_3
#undef QS_1_4
#undef QS_1_14
#undef QS_1_18
#undef QS

/* ---- api_trait.c ---- */
const char PL_SCHEMA_TRAIT_CUSTOM_TRAIT_SCHEMA[] =
    "{\"type\": \"string\", \"minLength\": 1, \"maxLength\": 255,"
    " \"pattern\": \"^CUSTOM_[A-Z0-9_]+$\"}";

/* schemas/trait.py: SET_TRAITS_FOR_RP_SCHEMA */
const char PL_SCHEMA_TRAIT_SET_TRAITS_SCHEMA[] =
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"traits\": {\"type\": \"array\","
    "                \"items\": {\"type\": \"string\", \"minLength\": 1,"
    "                           \"maxLength\": 255}},"
    "   \"resource_provider_generation\": {\"type\": \"integer\"}},"
    " \"required\": [\"traits\", \"resource_provider_generation\"],"
    " \"additionalProperties\": false}";

/* schemas/trait.py: LIST_TRAIT_SCHEMA (the query string) */
const char PL_SCHEMA_TRAIT_LIST_TRAITS_QS_SCHEMA[] =
    "{\"type\": \"object\","
    " \"properties\": {"
    "   \"name\": {\"type\": \"string\"},"
    "   \"associated\": {\"type\": \"string\"}},"
    " \"additionalProperties\": false}";

/* ---- api_usage.c ---- */
#define USAGES_PROPERTIES                                      \
    "\"project_id\": {\"type\": \"string\", \"minLength\": 1," \
    "                 \"maxLength\": 255},"                    \
    " \"user_id\": {\"type\": \"string\", \"minLength\": 1,"   \
    "               \"maxLength\": 255}"

const char PL_SCHEMA_USAGE_QS_SCHEMA_V1_9[] =
    "{\"type\": \"object\","
    " \"properties\": {" USAGES_PROPERTIES "},"
    " \"required\": [\"project_id\"],"
    " \"additionalProperties\": false}";

/* GET_USAGES_SCHEMA_V1_38: consumer_type added last */
const char PL_SCHEMA_USAGE_QS_SCHEMA_V1_38[] =
    "{\"type\": \"object\","
    " \"properties\": {" USAGES_PROPERTIES ","
    "   \"consumer_type\": {\"type\": \"string\","
    "                       \"pattern\": \"^[A-Z0-9_]+$|^all|^unknown$\","
    "                       \"minLength\": 1, \"maxLength\": 255}},"
    " \"required\": [\"project_id\"],"
    " \"additionalProperties\": false}";
#undef USAGES_PROPERTIES

/* ---- api_allocation_candidate.c ---- */
/* Query strings, as placement's schemas/allocation_candidate.py (one per
 * microversion where it changes; keys in upstream's dict order). */
#define QS_RESOURCES "\"resources\": {\"type\": \"string\"}"
#define QS_LIMIT                                        \
    "\"limit\": {\"type\": [\"integer\", \"string\"], " \
    "\"pattern\": \"^[1-9][0-9]*$\", \"minimum\": 1, \"minLength\": 1}"
#define QS_REQUIRED "\"required\": {\"type\": [\"string\"]}"
#define QS_MEMBER_OF "\"member_of\": {\"type\": [\"string\"]}"
#define QS_GROUP_POLICY                         \
    "\"group_policy\": {\"type\": \"string\", " \
    "\"enum\": [\"none\", \"isolate\"]}"
#define QS_ROOT_REQUIRED "\"root_required\": {\"type\": [\"string\"]}"
#define QS_SAME_SUBTREE "\"same_subtree\": {\"type\": [\"string\"]}"
#define QS_OLD(props)                                      \
    "{\"type\": \"object\", \"properties\": {" props "}, " \
    "\"required\": [\"resources\"], \"additionalProperties\": false}"
#define QS_GROUPED(props, pats)                            \
    "{\"type\": \"object\", \"properties\": {" props "}, " \
    "\"additionalProperties\": false, \"patternProperties\": {" pats "}}"
#define PAT(name, suffix) "\"^" name "(" suffix ")?$\": {\"type\": \"string\"}"
#define NUM "[1-9][0-9]*"
#define STR "[a-zA-Z0-9_-]{1,64}"
#define PATS_1_25 \
    PAT("resources", NUM) ", " PAT("required", NUM) ", " PAT("member_of", NUM)
#define PATS_1_31 PATS_1_25 ", " PAT("in_tree", NUM)
#define PATS_1_33                                                            \
    PAT("resources", STR)                                                    \
    ", " PAT("required", STR) ", " PAT("member_of", STR) ", " PAT("in_tree", \
                                                                  STR)

const char PL_SCHEMA_AC_QS_1_10[] = QS_OLD(QS_RESOURCES);
const char PL_SCHEMA_AC_QS_1_16[] = QS_OLD(QS_RESOURCES ", " QS_LIMIT);
const char PL_SCHEMA_AC_QS_1_17[] = QS_OLD(QS_RESOURCES ", " QS_LIMIT
                                                        ", " QS_REQUIRED);
const char PL_SCHEMA_AC_QS_1_21[] = QS_OLD(
    QS_RESOURCES ", " QS_LIMIT ", " QS_REQUIRED ", " QS_MEMBER_OF);
const char PL_SCHEMA_AC_QS_1_25[] = QS_GROUPED(QS_LIMIT ", " QS_GROUP_POLICY,
                                               PATS_1_25);
const char PL_SCHEMA_AC_QS_1_31[] = QS_GROUPED(QS_LIMIT ", " QS_GROUP_POLICY,
                                               PATS_1_31);
const char PL_SCHEMA_AC_QS_1_33[] = QS_GROUPED(QS_LIMIT ", " QS_GROUP_POLICY,
                                               PATS_1_33);
const char PL_SCHEMA_AC_QS_1_35[] = QS_GROUPED(
    QS_LIMIT ", " QS_GROUP_POLICY ", " QS_ROOT_REQUIRED, PATS_1_33);
const char PL_SCHEMA_AC_QS_1_36[] = QS_GROUPED(
    QS_LIMIT ", " QS_GROUP_POLICY ", " QS_ROOT_REQUIRED ", " QS_SAME_SUBTREE,
    PATS_1_33);
#undef QS_RESOURCES
#undef QS_LIMIT
#undef QS_REQUIRED
#undef QS_MEMBER_OF
#undef QS_GROUP_POLICY
#undef QS_ROOT_REQUIRED
#undef QS_SAME_SUBTREE
#undef QS_OLD
#undef QS_GROUPED
#undef PAT
#undef NUM
#undef STR
#undef PATS_1_25
#undef PATS_1_31
#undef PATS_1_33

const char *const pl_schemas_all[] = { PL_SCHEMA_AGGREGATE_PUT_SCHEMA_V1_1,
                                       PL_SCHEMA_AGGREGATE_PUT_SCHEMA_V1_19,
                                       PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_0,
                                       PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_8,
                                       PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_12,
                                       PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_28,
                                       PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_34,
                                       PL_SCHEMA_ALLOCATION_SCHEMA_PUT_1_38,
                                       PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_13,
                                       PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_28,
                                       PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_34,
                                       PL_SCHEMA_ALLOCATION_SCHEMA_POST_1_38,
                                       PL_SCHEMA_INVENTORY_PUT_ONE_SCHEMA,
                                       PL_SCHEMA_INVENTORY_POST_SCHEMA,
                                       PL_SCHEMA_INVENTORY_PUT_ALL_SCHEMA,
                                       PL_SCHEMA_RESHAPER_SCHEMA_1_30,
                                       PL_SCHEMA_RESHAPER_SCHEMA_1_34,
                                       PL_SCHEMA_RESHAPER_SCHEMA_1_38,
                                       PL_SCHEMA_RC_RC_SCHEMA,
                                       PL_SCHEMA_RP_POST_SCHEMA,
                                       PL_SCHEMA_RP_POST_SCHEMA_1_14,
                                       PL_SCHEMA_RP_PUT_SCHEMA,
                                       PL_SCHEMA_RP_PUT_SCHEMA_1_14,
                                       PL_SCHEMA_RP_LIST_QS,
                                       PL_SCHEMA_RP_LIST_QS_1_3,
                                       PL_SCHEMA_RP_LIST_QS_1_4,
                                       PL_SCHEMA_RP_LIST_QS_1_14,
                                       PL_SCHEMA_RP_LIST_QS_1_18,
                                       PL_SCHEMA_TRAIT_CUSTOM_TRAIT_SCHEMA,
                                       PL_SCHEMA_TRAIT_SET_TRAITS_SCHEMA,
                                       PL_SCHEMA_TRAIT_LIST_TRAITS_QS_SCHEMA,
                                       PL_SCHEMA_USAGE_QS_SCHEMA_V1_9,
                                       PL_SCHEMA_USAGE_QS_SCHEMA_V1_38,
                                       PL_SCHEMA_AC_QS_1_10,
                                       PL_SCHEMA_AC_QS_1_16,
                                       PL_SCHEMA_AC_QS_1_17,
                                       PL_SCHEMA_AC_QS_1_21,
                                       PL_SCHEMA_AC_QS_1_25,
                                       PL_SCHEMA_AC_QS_1_31,
                                       PL_SCHEMA_AC_QS_1_33,
                                       PL_SCHEMA_AC_QS_1_35,
                                       PL_SCHEMA_AC_QS_1_36,
                                       NULL };
