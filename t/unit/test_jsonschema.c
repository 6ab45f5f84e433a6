/* Licensed under the Apache License, Version 2.0.
 *
 * test_jsonschema.c: unit tests of pl_jsonschema. Every expected message
 * below was produced by python-jsonschema 4.10.3 with placement's uuid
 * format checker (jsonschema.validate(doc, schema,
 * format_checker=FormatChecker()), the call placement.util.extract_json
 * makes); NULL means the document is valid. The placement-like schemas are
 * the JSON dumps of placement 8.0.0's own schema dicts (key order kept).
 * Output is TAP (t/unit/tap.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <json-c/json.h>

#include "pl_jsonschema.h"
#include "tap.h"

/* ------------------------------------------------------------------ */
/* Schemas (JSON text, as the api_* files will write them)             */

static const char *S_str = "{\"type\": \"string\"}";
static const char *S_int = "{\"type\": \"integer\"}";
static const char *S_num = "{\"type\": \"number\"}";
static const char *S_bool = "{\"type\": \"boolean\"}";
static const char *S_null = "{\"type\": \"null\"}";
static const char *S_arr = "{\"type\": \"array\"}";
static const char *S_obj = "{\"type\": \"object\"}";
static const char *S_int_null = "{\"type\": [\"integer\", \"null\"]}";
static const char *S_str_list1 = "{\"type\": [\"string\"]}";
static const char
    *S_req = "{\"type\": \"object\", \"required\": [\"name\", \"uuid\"]}";
static const char *S_props =
    "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"st"
    "ring\"}, \"n\": {\"type\": \"integer\"}}}";
static const char *S_noadd =
    "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"st"
    "ring\"}}, \"additionalProperties\": false}";
static const char *S_addschema =
    "{\"type\": \"object\", \"properties\": {\"a\": {}}, \"additionalP"
    "roperties\": {\"type\": \"integer\"}}";
static const char
    *S_pp = "{\"type\": \"object\", \"patternProperties\": {\"^[A-Z0-9_]+$\": "
            "{\"type\": \"integer\", \"minimum\": 1}}, \"additionalProperties\""
            ": false}";
static const char
    *S_pp2 = "{\"type\": \"object\", \"patternProperties\": {\"^[A-Z]+$\": {\"t"
             "ype\": \"integer\"}, \"^[0-9]+$\": {\"type\": \"string\"}}, \"add"
             "itionalProperties\": false}";
static const char *S_minmaxprops =
    "{\"type\": \"object\", \"minProperties\": 1, \"maxProperties\": 2"
    "}";
static const char *S_items =
    "{\"type\": \"array\", \"items\": {\"type\": \"string\", \"format\""
    ": \"uuid\"}, \"uniqueItems\": true}";
static const char
    *S_minmaxitems = "{\"type\": \"array\", \"minItems\": 1, \"maxItems\": 3}";
static const char *S_itemsfalse = "{\"items\": false}";
static const char *S_uniq = "{\"uniqueItems\": true}";
static const char *S_minmax =
    "{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 2147483647}";
static const char *S_fmax = "{\"type\": \"number\", \"maximum\": 3.40282e+38}";
static const char
    *S_excl = "{\"exclusiveMinimum\": 0, \"exclusiveMaximum\": 10.5}";
static const char
    *S_len = "{\"type\": \"string\", \"minLength\": 1, \"maxLength\": 5}";
static const char
    *S_pat = "{\"type\": \"string\", \"pattern\": \"^[A-Z0-9_]+$\"}";
static const char
    *S_patsearch = "{\"type\": \"string\", \"pattern\": \"[0-9]+\"}";
static const char *S_patalt =
    "{\"type\": \"string\", \"pattern\": \"^[A-Z0-9_]+$|^all|^unknown$"
    "\"}";
static const char
    *S_patpy = "{\"pattern\": \"^\\\\d{2}\\\\.\\\\w+(?:x|y)*?$\"}";
static const char *S_patdot = "{\"pattern\": \"^a.c$\"}";
static const char
    *S_enum = "{\"type\": \"string\", \"enum\": [\"none\", \"isolate\"]}";
static const char
    *S_enumnum = "{\"enum\": [1, 2.5, null, \"a\", [1, 2], {\"k\": true}]}";
static const char *S_enumbool = "{\"enum\": [true]}";
static const char *S_enumzero = "{\"enum\": [0, \"x\"]}";
static const char *S_const = "{\"const\": {\"a\": [1, \"b\"]}}";
static const char *S_const1 = "{\"const\": 1}";
static const char *S_uuid = "{\"type\": \"string\", \"format\": \"uuid\"}";
static const char *S_uuidonly = "{\"format\": \"uuid\"}";
static const char *S_anyof =
    "{\"anyOf\": [{\"type\": \"string\", \"format\": \"uuid\"}, {\"typ"
    "e\": \"null\"}]}";
static const char *S_anyof2 =
    "{\"anyOf\": [{\"type\": \"integer\", \"minimum\": 5}, {\"type\": "
    "\"string\", \"maxLength\": 2}]}";
static const char *S_anyof3 =
    "{\"anyOf\": [{\"type\": \"object\", \"properties\": {\"a\": {\"ty"
    "pe\": \"object\", \"properties\": {\"b\": {\"type\": \"integer\"}"
    "}}}}, {\"type\": \"string\"}]}";
static const char *S_oneof =
    "{\"oneOf\": [{\"type\": \"integer\"}, {\"type\": \"number\"}, {\""
    "type\": \"string\"}]}";
static const char
    *S_allof = "{\"allOf\": [{\"type\": \"integer\"}, {\"minimum\": 3}]}";
static const char *S_not = "{\"not\": {\"type\": \"string\"}}";
static const char
    *S_ref = "{\"definitions\": {\"rc\": {\"type\": \"string\", \"pattern\": \""
             "^[A-Z]+$\"}}, \"type\": \"object\", \"properties\": {\"a\": {\"$r"
             "ef\": \"#/definitions/rc\"}, \"b\": {\"type\": \"array\", \"items"
             "\": {\"$ref\": \"#/definitions/rc\"}}}}";
static const char *S_recref =
    "{\"type\": \"object\", \"properties\": {\"child\": {\"$ref\": \"#"
    "\"}, \"v\": {\"type\": \"integer\"}}}";
static const char *S_falseprop = "{\"properties\": {\"x\": false}}";
static const char
    *S_typeenum = "{\"type\": \"string\", \"enum\": [\"a\"], \"maxLength\": 0}";
static const char *S_rp_post_114 =
    "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"st"
    "ring\", \"maxLength\": 200}, \"uuid\": {\"type\": \"string\", \"f"
    "ormat\": \"uuid\"}, \"parent_provider_uuid\": {\"anyOf\": [{\"typ"
    "e\": \"string\", \"format\": \"uuid\"}, {\"type\": \"null\"}]}}, "
    "\"required\": [\"name\"], \"additionalProperties\": false}";
static const char *S_inv_put =
    "{\"type\": \"object\", \"properties\": {\"resource_provider_gener"
    "ation\": {\"type\": \"integer\"}, \"inventories\": {\"type\": \"o"
    "bject\", \"patternProperties\": {\"^[A-Z0-9_]+$\": {\"type\": \"o"
    "bject\", \"properties\": {\"resource_provider_generation\": {\"ty"
    "pe\": \"integer\"}, \"total\": {\"type\": \"integer\", \"maximum\""
    ": 2147483647, \"minimum\": 1}, \"reserved\": {\"type\": \"integer"
    "\", \"maximum\": 2147483647, \"minimum\": 0}, \"min_unit\": {\"ty"
    "pe\": \"integer\", \"maximum\": 2147483647, \"minimum\": 1}, \"ma"
    "x_unit\": {\"type\": \"integer\", \"maximum\": 2147483647, \"mini"
    "mum\": 1}, \"step_size\": {\"type\": \"integer\", \"maximum\": 21"
    "47483647, \"minimum\": 1}, \"allocation_ratio\": {\"type\": \"num"
    "ber\", \"maximum\": 3.40282e+38}}, \"required\": [\"total\"], \"a"
    "dditionalProperties\": false}}}}, \"required\": [\"resource_provi"
    "der_generation\", \"inventories\"], \"additionalProperties\": fal"
    "se}";
static const char *S_alloc_put_128 =
    "{\"type\": \"object\", \"properties\": {\"allocations\": {\"type\""
    ": \"object\", \"minProperties\": 0, \"patternProperties\": {\"^[0"
    "-9a-fA-F-]{36}$\": {\"type\": \"object\", \"properties\": {\"gene"
    "ration\": {\"type\": \"integer\"}, \"resources\": {\"type\": \"ob"
    "ject\", \"minProperties\": 1, \"patternProperties\": {\"^[A-Z0-9_"
    "]+$\": {\"type\": \"integer\", \"minimum\": 1}}, \"additionalProp"
    "erties\": false}}, \"required\": [\"resources\"], \"additionalPro"
    "perties\": false}}, \"additionalProperties\": false}, \"project_i"
    "d\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\": 255}"
    ", \"user_id\": {\"type\": \"string\", \"minLength\": 1, \"maxLeng"
    "th\": 255}, \"consumer_generation\": {\"type\": [\"integer\", \"n"
    "ull\"], \"additionalProperties\": false}}, \"additionalProperties"
    "\": false, \"required\": [\"allocations\", \"project_id\", \"user"
    "_id\", \"consumer_generation\"]}";
static const char *S_alloc_post_128 =
    "{\"type\": \"object\", \"minProperties\": 1, \"additionalProperti"
    "es\": false, \"patternProperties\": {\"^[0-9a-fA-F-]{36}$\": {\"t"
    "ype\": \"object\", \"properties\": {\"allocations\": {\"type\": \""
    "object\", \"minProperties\": 0, \"patternProperties\": {\"^[0-9a-"
    "fA-F-]{36}$\": {\"type\": \"object\", \"properties\": {\"generati"
    "on\": {\"type\": \"integer\"}, \"resources\": {\"type\": \"object"
    "\", \"minProperties\": 1, \"patternProperties\": {\"^[A-Z0-9_]+$\""
    ": {\"type\": \"integer\", \"minimum\": 1}}, \"additionalPropertie"
    "s\": false}}, \"required\": [\"resources\"], \"additionalProperti"
    "es\": false}}, \"additionalProperties\": false}, \"project_id\": "
    "{\"type\": \"string\", \"minLength\": 1, \"maxLength\": 255}, \"u"
    "ser_id\": {\"type\": \"string\", \"minLength\": 1, \"maxLength\":"
    " 255}, \"consumer_generation\": {\"type\": [\"integer\", \"null\""
    "], \"additionalProperties\": false}}, \"additionalProperties\": f"
    "alse, \"required\": [\"allocations\", \"project_id\", \"user_id\""
    ", \"consumer_generation\"]}}}";
static const char *S_agg_119 =
    "{\"type\": \"object\", \"properties\": {\"aggregates\": {\"type\""
    ": \"array\", \"items\": {\"type\": \"string\", \"format\": \"uuid"
    "\"}, \"uniqueItems\": true}, \"resource_provider_generation\": {\""
    "type\": \"integer\"}}, \"required\": [\"aggregates\", \"resource_"
    "provider_generation\"], \"additionalProperties\": false}";
static const char *S_traits_rp =
    "{\"type\": \"object\", \"properties\": {\"traits\": {\"type\": \""
    "array\", \"items\": {\"type\": \"string\", \"minLength\": 1, \"ma"
    "xLength\": 255}}, \"resource_provider_generation\": {\"type\": \""
    "integer\"}}, \"required\": [\"traits\", \"resource_provider_gener"
    "ation\"], \"additionalProperties\": false}";

typedef struct {
    const char *label;
    const char **schema;
    const char *doc;
    const char *expect; /* NULL: valid */
} vcase_t;

static const vcase_t cases[] = {
    { "str", &S_str, "\"x\"", NULL },
    { "str", &S_str, "1", "1 is not of type 'string'" },
    { "str", &S_str, "null", "None is not of type 'string'" },
    { "str", &S_str, "true", "True is not of type 'string'" },
    { "str", &S_str, "1.5", "1.5 is not of type 'string'" },
    { "str", &S_str, "[1, \"a\", null, false]",
      "[1, 'a', None, False] is not of type 'string'" },
    { "str", &S_str, "{\"a\": 1, \"b\": [true]}",
      "{'a': 1, 'b': [True]} is not of type 'string'" },
    { "int", &S_int, "1", NULL },
    { "int", &S_int, "1.0", NULL },
    { "int", &S_int, "1.5", "1.5 is not of type 'integer'" },
    { "int", &S_int, "true", "True is not of type 'integer'" },
    { "int", &S_int, "\"1\"", "'1' is not of type 'integer'" },
    { "int", &S_int, "1e2", NULL },
    { "int", &S_int, "-0.0", NULL },
    { "int", &S_int, "1e20", NULL },
    { "int", &S_int, "1.5e300", NULL },
    { "int", &S_int, "0.0001", "0.0001 is not of type 'integer'" },
    { "int", &S_int, "0.00001", "1e-05 is not of type 'integer'" },
    { "int", &S_int, "123456789012345678", NULL },
    { "int", &S_int, "-9223372036854775808", NULL },
    { "int", &S_int, "1e16", NULL },
    { "int", &S_int, "1e15", NULL },
    { "int", &S_int, "12345678901234567.5", NULL },
    { "num", &S_num, "1", NULL },
    { "num", &S_num, "1.5", NULL },
    { "num", &S_num, "false", "False is not of type 'number'" },
    { "num", &S_num, "\"x\"", "'x' is not of type 'number'" },
    { "bool", &S_bool, "false", NULL },
    { "bool", &S_bool, "0", "0 is not of type 'boolean'" },
    { "null", &S_null, "null", NULL },
    { "null", &S_null, "0", "0 is not of type 'null'" },
    { "null", &S_null, "\"\"", "'' is not of type 'null'" },
    { "arr", &S_arr, "[]", NULL },
    { "arr", &S_arr, "{}", "{} is not of type 'array'" },
    { "obj", &S_obj, "{}", NULL },
    { "obj", &S_obj, "[]", "[] is not of type 'object'" },
    { "int_null", &S_int_null, "null", NULL },
    { "int_null", &S_int_null, "3", NULL },
    { "int_null", &S_int_null, "\"x\"",
      "'x' is not of type 'integer', 'null'" },
    { "int_null", &S_int_null, "{}", "{} is not of type 'integer', 'null'" },
    { "str_list1", &S_str_list1, "2", "2 is not of type 'string'" },
    { "str", &S_str,
      "[0.1, 1e22, 1.1, 100.0, 1e-7, 123456789.123, 5e-324, 1.7976931348"
      "623157e308, -2.5e-5, 9007199254740993.0, 0.3, 2.675]",
      "[0.1, 1e+22, 1.1, 100.0, 1e-07, 123456789.123, 5e-324, 1.79769313"
      "48623157e+308, -2.5e-05, 9007199254740992.0, 0.3, 2.675] is not o"
      "f type 'string'" },
    { "str", &S_str,
      "[1e16, 9999999999999998.0, 1234567890123456.7, 0.001, 1.5e-10, -0"
      ".0, 18446744073709551615, 9223372036854775807]",
      "[1e+16, 9999999999999998.0, 1234567890123456.8, 0.001, 1.5e-10, -"
      "0.0, 18446744073709551615, 9223372036854775807] is not of type 's"
      "tring'" },
    { "str", &S_str, "{\"k'ey\": \"v\", \"\": [], \"n\": {\"x\": {}}}",
      "{\"k'ey\": 'v', '': [], 'n': {'x': {}}} is not of type 'string'" },
    { "str", &S_str, "\"it's\"", NULL },
    { "str", &S_str, "\"say \\\"hi\\\"\"", NULL },
    { "str", &S_str, "\"both ' and \\\"\"", NULL },
    { "str", &S_str, "\"tab\\tnl\\ncr\\r bs\\\\ nul\\u0000 del\\u007f\"",
      NULL },
    { "str", &S_str,
      "\"caf\\u00e9 \\u00a0 \\u00ad \\u4e2d \\u200b \\ud83d\\ude00 \\u03"
      "78 \\ue000\"",
      NULL },
    { "req", &S_req, "{}", "'name' is a required property" },
    { "req", &S_req, "{\"uuid\": 1}", "'name' is a required property" },
    { "req", &S_req, "{\"name\": 1}", "'uuid' is a required property" },
    { "req", &S_req, "[]", "[] is not of type 'object'" },
    { "props", &S_props, "{\"name\": 1, \"n\": \"x\"}",
      "1 is not of type 'string'" },
    { "props", &S_props, "{\"n\": \"x\", \"name\": 1}",
      "1 is not of type 'string'" },
    { "props", &S_props, "{\"name\": \"a\", \"n\": 2}", NULL },
    { "noadd", &S_noadd, "{\"foo\": 1}",
      "Additional properties are not allowed ('foo' was unexpected)" },
    { "noadd", &S_noadd, "{\"name\": \"a\", \"zed\": 1, \"abc\": 2}",
      "Additional properties are not allowed ('abc', 'zed' were unexpect"
      "ed)" },
    { "noadd", &S_noadd, "{\"name\": 1, \"foo\": 1}",
      "Additional properties are not allowed ('foo' was unexpected)" },
    { "noadd", &S_noadd, "{\"name\": \"a\"}", NULL },
    { "addschema", &S_addschema, "{\"a\": \"x\", \"b\": 1}", NULL },
    { "addschema", &S_addschema, "{\"a\": \"x\", \"b\": \"y\"}",
      "'y' is not of type 'integer'" },
    { "pp", &S_pp, "{\"VCPU\": 1, \"DISK_GB\": 0}",
      "0 is less than the minimum of 1" },
    { "pp", &S_pp, "{\"vcpu\": 1}",
      "'vcpu' does not match any of the regexes: '^[A-Z0-9_]+$'" },
    { "pp", &S_pp, "{\"VCPU\": \"1\", \"b\": 1, \"a\": 2}",
      "'a', 'b' do not match any of the regexes: '^[A-Z0-9_]+$'" },
    { "pp", &S_pp, "{\"VCPU\": 2}", NULL },
    { "pp2", &S_pp2, "{\"x\": 1}",
      "'x' does not match any of the regexes: '^[0-9]+$', '^[A-Z]+$'" },
    { "minmaxprops", &S_minmaxprops, "{}",
      "{} does not have enough properties" },
    { "minmaxprops", &S_minmaxprops, "{\"a\": 1, \"b\": 2, \"c\": 3}",
      "{'a': 1, 'b': 2, 'c': 3} has too many properties" },
    { "minmaxprops", &S_minmaxprops, "{\"a\": 1}", NULL },
    { "items", &S_items, "[\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\"]", NULL },
    { "items", &S_items, "[\"pony\"]", "'pony' is not a 'uuid'" },
    { "items", &S_items,
      "[\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\", \"4e8e5957-649f-477b-9"
      "e5b-f1f75b21c03c\"]",
      "['4e8e5957-649f-477b-9e5b-f1f75b21c03c', '4e8e5957-649f-477b-9e5b"
      "-f1f75b21c03c'] has non-unique elements" },
    { "items", &S_items, "[1]", "1 is not of type 'string'" },
    { "items", &S_items, "[\"4e8e5957649f477b9e5bf1f75b21c03c\"]", NULL },
    { "items", &S_items, "[\"{4e8e5957-649f-477b-9e5b-f1f75b21c03c}\"]", NULL },
    { "items", &S_items, "[\"urn:uuid:4e8e5957-649f-477b-9e5b-f1f75b21c03c\"]",
      NULL },
    { "items", &S_items, "[\"4E8E5957-649F-477B-9E5B-F1F75B21C03C\"]", NULL },
    { "items", &S_items, "[\"4e8e5957-649f-477b-9e5b-f1f75b21c03\"]",
      "'4e8e5957-649f-477b-9e5b-f1f75b21c03' is not a 'uuid'" },
    { "items", &S_items, "[\"4e8e-5957649f477b9e5bf1f75b21c03c--\"]", NULL },
    { "items", &S_items, "[\"4e8e5957-649f-477b-9e5b-f1f75b21c03g\"]",
      "'4e8e5957-649f-477b-9e5b-f1f75b21c03g' is not a 'uuid'" },
    { "items", &S_items, "[\"+e8e5957-649f-477b-9e5b-f1f75b21c03c\"]",
      "'+e8e5957-649f-477b-9e5b-f1f75b21c03c' is not a 'uuid'" },
    { "minmaxitems", &S_minmaxitems, "[]", "[] is too short" },
    { "minmaxitems", &S_minmaxitems, "[1, 2, 3, 4]",
      "[1, 2, 3, 4] is too long" },
    { "minmaxitems", &S_minmaxitems, "[1]", NULL },
    { "itemsfalse", &S_itemsfalse, "[]", NULL },
    { "itemsfalse", &S_itemsfalse, "[1, 2]",
      "Expected at most 0 items, but found 2" },
    { "uniq", &S_uniq, "[1, 1.0]", "[1, 1.0] has non-unique elements" },
    { "uniq", &S_uniq, "[1, true]", NULL },
    { "uniq", &S_uniq, "[0, false]", NULL },
    { "uniq", &S_uniq, "[false, false]",
      "[False, False] has non-unique elements" },
    { "uniq", &S_uniq, "[{\"a\": 1}, {\"a\": 1.0}]",
      "[{'a': 1}, {'a': 1.0}] has non-unique elements" },
    { "uniq", &S_uniq, "[{\"a\": 1, \"b\": 2}, {\"b\": 2, \"a\": 1}]",
      "[{'a': 1, 'b': 2}, {'b': 2, 'a': 1}] has non-unique elements" },
    { "uniq", &S_uniq, "[[1], [true]]", NULL },
    { "uniq", &S_uniq, "[\"a\", 1, \"a\"]",
      "['a', 1, 'a'] has non-unique elements" },
    { "uniq", &S_uniq, "[null, null]", "[None, None] has non-unique elements" },
    { "uniq", &S_uniq, "[\"a\", \"b\"]", NULL },
    { "uniq", &S_uniq, "[1.5, 2.5, 1.5]",
      "[1.5, 2.5, 1.5] has non-unique elements" },
    { "minmax", &S_minmax, "0", "0 is less than the minimum of 1" },
    { "minmax", &S_minmax, "-1", "-1 is less than the minimum of 1" },
    { "minmax", &S_minmax, "2147483648",
      "2147483648 is greater than the maximum of 2147483647" },
    { "minmax", &S_minmax, "1", NULL },
    { "minmax", &S_minmax, "0.5", "0.5 is not of type 'integer'" },
    { "minmax", &S_minmax, "1e10",
      "10000000000.0 is greater than the maximum of 2147483647" },
    { "fmax", &S_fmax, "3.5e38",
      "3.5e+38 is greater than the maximum of 3.40282e+38" },
    { "fmax", &S_fmax, "1e38", NULL },
    { "excl", &S_excl, "0", "0 is less than or equal to the minimum of 0" },
    { "excl", &S_excl, "10.5",
      "10.5 is greater than or equal to the maximum of 10.5" },
    { "excl", &S_excl, "11",
      "11 is greater than or equal to the maximum of 10.5" },
    { "excl", &S_excl, "5", NULL },
    { "excl", &S_excl, "-0.5",
      "-0.5 is less than or equal to the minimum of 0" },
    { "excl", &S_excl, "true", NULL },
    { "len", &S_len, "\"\"", "'' is too short" },
    { "len", &S_len, "\"abcdef\"", "'abcdef' is too long" },
    { "len", &S_len, "\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\"", NULL },
    { "len", &S_len, "\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\"",
      "'\303\251\303\251\303\251\303\251\303\251\303\251' is too long" },
    { "len", &S_len, "\"\\ud83d\\ude00\\ud83d\\ude00\"", NULL },
    { "len", &S_len, "5", "5 is not of type 'string'" },
    { "pat", &S_pat, "\"abc\"", "'abc' does not match '^[A-Z0-9_]+$'" },
    { "pat", &S_pat, "\"ABC\"", NULL },
    { "pat", &S_pat, "\"ABC\\n\"", NULL },
    { "pat", &S_pat, "\"ABC\\n\\n\"",
      "'ABC\\n\\n' does not match '^[A-Z0-9_]+$'" },
    { "pat", &S_pat, "\"A B\"", "'A B' does not match '^[A-Z0-9_]+$'" },
    { "pat", &S_pat, "\"\"", "'' does not match '^[A-Z0-9_]+$'" },
    { "pat", &S_pat, "1", "1 is not of type 'string'" },
    { "patsearch", &S_patsearch, "\"ab1c\"", NULL },
    { "patsearch", &S_patsearch, "\"abc\"", "'abc' does not match '[0-9]+'" },
    { "patalt", &S_patalt, "\"alligator\"", NULL },
    { "patalt", &S_patalt, "\"unknown\"", NULL },
    { "patalt", &S_patalt, "\"unknownx\"",
      "'unknownx' does not match '^[A-Z0-9_]+$|^all|^unknown$'" },
    { "patalt", &S_patalt, "\"FOO\"", NULL },
    { "patalt", &S_patalt, "\"foo\"",
      "'foo' does not match '^[A-Z0-9_]+$|^all|^unknown$'" },
    { "patpy", &S_patpy, "\"12.ab_\"", NULL },
    { "patpy", &S_patpy, "\"12.ab-\"",
      "'12.ab-' does not match '^\\\\d{2}\\\\.\\\\w+(?:x|y)*?$'" },
    { "patpy", &S_patpy, "\"1x.a\"",
      "'1x.a' does not match '^\\\\d{2}\\\\.\\\\w+(?:x|y)*?$'" },
    { "patpy", &S_patpy, "\"12.axy\"", NULL },
    { "patdot", &S_patdot, "\"abc\"", NULL },
    { "patdot", &S_patdot, "\"a\\nc\"", "'a\\nc' does not match '^a.c$'" },
    { "enum", &S_enum, "\"none\"", NULL },
    { "enum", &S_enum, "\"pony\"", "'pony' is not one of ['none', 'isolate']" },
    { "enum", &S_enum, "1", "1 is not of type 'string'" },
    { "enumnum", &S_enumnum, "1.0", NULL },
    { "enumnum", &S_enumnum, "true",
      "True is not one of [1, 2.5, None, 'a', [1, 2], {'k': True}]" },
    { "enumnum", &S_enumnum, "2.5", NULL },
    { "enumnum", &S_enumnum, "null", NULL },
    { "enumnum", &S_enumnum, "\"b\"",
      "'b' is not one of [1, 2.5, None, 'a', [1, 2], {'k': True}]" },
    { "enumnum", &S_enumnum, "[1, 2.0]", NULL },
    { "enumnum", &S_enumnum, "[true, 2]", NULL },
    { "enumnum", &S_enumnum, "{\"k\": 1}", NULL },
    { "enumnum", &S_enumnum, "{\"k\": true}", NULL },
    { "enumnum", &S_enumnum, "0",
      "0 is not one of [1, 2.5, None, 'a', [1, 2], {'k': True}]" },
    { "enumbool", &S_enumbool, "1", "1 is not one of [True]" },
    { "enumbool", &S_enumbool, "true", NULL },
    { "enumzero", &S_enumzero, "false", "False is not one of [0, 'x']" },
    { "enumzero", &S_enumzero, "0.0", NULL },
    { "const", &S_const, "{\"a\": [1, \"b\"]}", NULL },
    { "const", &S_const, "{\"a\": [true, \"b\"]}",
      "{'a': [1, 'b']} was expected" },
    { "const", &S_const, "{\"a\": [1.0, \"b\"]}", NULL },
    { "const1", &S_const1, "true", "1 was expected" },
    { "const1", &S_const1, "1.0", NULL },
    { "const1", &S_const1, "2", "1 was expected" },
    { "uuid", &S_uuid, "\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\"", NULL },
    { "uuid", &S_uuid, "\"pony\"", "'pony' is not a 'uuid'" },
    { "uuid", &S_uuid, "3", "3 is not of type 'string'" },
    { "uuidonly", &S_uuidonly, "3", "3 is not a 'uuid'" },
    { "uuidonly", &S_uuidonly, "null", "None is not a 'uuid'" },
    { "uuid", &S_uuid, "\"uurn:uid:4e8e5957-649f-477b-9e5b-f1f75b21c03c\"",
      NULL },
    { "uuid", &S_uuid, "\"{{4e8e5957649f477b9e5bf1f75b21c03c}\"", NULL },
    { "anyof", &S_anyof, "null", NULL },
    { "anyof", &S_anyof, "\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\"", NULL },
    { "anyof", &S_anyof, "\"pony\"", "'pony' is not a 'uuid'" },
    { "anyof", &S_anyof, "1", "1 is not valid under any of the given schemas" },
    { "anyof", &S_anyof, "[]",
      "[] is not valid under any of the given schemas" },
    { "anyof2", &S_anyof2, "3", "3 is less than the minimum of 5" },
    { "anyof2", &S_anyof2, "\"abc\"", "'abc' is too long" },
    { "anyof2", &S_anyof2, "7", NULL },
    { "anyof2", &S_anyof2, "null",
      "None is not valid under any of the given schemas" },
    { "anyof3", &S_anyof3, "{\"a\": {\"b\": \"x\"}}",
      "'x' is not of type 'integer'" },
    { "anyof3", &S_anyof3, "{\"a\": 1}", "1 is not of type 'object'" },
    { "anyof3", &S_anyof3, "1",
      "1 is not valid under any of the given schemas" },
    { "oneof", &S_oneof, "1",
      "1 is valid under each of {'type': 'number'}, {'type': 'integer'}" },
    { "oneof", &S_oneof, "1.5", NULL },
    { "oneof", &S_oneof, "\"s\"", NULL },
    { "oneof", &S_oneof, "null",
      "None is not valid under any of the given schemas" },
    { "allof", &S_allof, "2", "2 is less than the minimum of 3" },
    { "allof", &S_allof, "\"x\"", "'x' is not of type 'integer'" },
    { "allof", &S_allof, "3", NULL },
    { "not", &S_not, "\"x\"",
      "'x' should not be valid under {'type': 'string'}" },
    { "not", &S_not, "1", NULL },
    { "ref", &S_ref, "{\"a\": \"ABC\", \"b\": [\"X\"]}", NULL },
    { "ref", &S_ref, "{\"a\": \"abc\"}", "'abc' does not match '^[A-Z]+$'" },
    { "ref", &S_ref, "{\"b\": [\"X\", \"y\"]}",
      "'y' does not match '^[A-Z]+$'" },
    { "ref", &S_ref, "{\"a\": 1}", "1 is not of type 'string'" },
    { "recref", &S_recref, "{\"child\": {\"child\": {\"v\": \"x\"}}}",
      "'x' is not of type 'integer'" },
    { "recref", &S_recref, "{\"child\": {\"child\": {\"v\": 1}}}", NULL },
    { "falseprop", &S_falseprop, "{\"x\": 1}",
      "False schema does not allow 1" },
    { "falseprop", &S_falseprop, "{\"y\": 1}", NULL },
    { "typeenum", &S_typeenum, "1", "1 is not of type 'string'" },
    { "typeenum", &S_typeenum, "\"b\"", "'b' is not one of ['a']" },
    { "rp_post_114", &S_rp_post_114, "{\"name\": \"rp1\"}", NULL },
    { "rp_post_114", &S_rp_post_114,
      "{\"name\": \"rp1\", \"uuid\": \"4e8e5957-649f-477b-9e5b-f1f75b21c"
      "03c\", \"parent_provider_uuid\": null}",
      NULL },
    { "rp_post_114", &S_rp_post_114, "{}", "'name' is a required property" },
    { "rp_post_114", &S_rp_post_114, "{\"name\": 1}",
      "1 is not of type 'string'" },
    { "rp_post_114", &S_rp_post_114,
      "{\"name\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxx\"}",
      "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxx' is too long" },
    { "rp_post_114", &S_rp_post_114, "{\"name\": \"rp\", \"uuid\": \"pony\"}",
      "'pony' is not a 'uuid'" },
    { "rp_post_114", &S_rp_post_114,
      "{\"name\": \"rp\", \"parent_provider_uuid\": \"pony\"}",
      "'pony' is not a 'uuid'" },
    { "rp_post_114", &S_rp_post_114,
      "{\"name\": \"rp\", \"parent_provider_uuid\": 1}",
      "1 is not valid under any of the given schemas" },
    { "rp_post_114", &S_rp_post_114, "{\"name\": \"rp\", \"foo\": 1}",
      "Additional properties are not allowed ('foo' was unexpected)" },
    { "rp_post_114", &S_rp_post_114,
      "{\"name\": \"rp\", \"foo\": 1, \"bar\": 2}",
      "Additional properties are not allowed ('bar', 'foo' were unexpect"
      "ed)" },
    { "rp_post_114", &S_rp_post_114, "[]", "[] is not of type 'object'" },
    { "rp_post_114", &S_rp_post_114, "null", "None is not of type 'object'" },
    { "rp_post_114", &S_rp_post_114, "{\"uuid\": \"pony\", \"foo\": 1}",
      "'name' is a required property" },
    { "rp_post_114", &S_rp_post_114, "{\"name\": null}",
      "None is not of type 'string'" },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": 1, \"inventories\": {\"VCPU\":"
      " {\"total\": 8}}}",
      NULL },
    { "inv_put", &S_inv_put, "{\"inventories\": {}}",
      "'resource_provider_generation' is a required property" },
    { "inv_put", &S_inv_put, "{\"resource_provider_generation\": 1}",
      "'inventories' is a required property" },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": \"1\", \"inventories\": {}}",
      "'1' is not of type 'integer'" },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": 1, \"inventories\": {\"VCPU\":"
      " {\"total\": 0}}}",
      "0 is less than the minimum of 1" },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": 1, \"inventories\": {\"VCPU\":"
      " {}}}",
      "'total' is a required property" },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": 1, \"inventories\": {\"VCPU\":"
      " {\"total\": 8, \"reserved\": -1}}}",
      "-1 is less than the minimum of 0" },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": 1, \"inventories\": {\"VCPU\":"
      " {\"total\": 2147483648}}}",
      "2147483648 is greater than the maximum of 2147483647" },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": 1, \"inventories\": {\"VCPU\":"
      " {\"total\": 8, \"allocation_ratio\": 1e39}}}",
      "1e+39 is greater than the maximum of 3.40282e+38" },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": 1, \"inventories\": {\"VCPU\":"
      " {\"total\": 8, \"allocation_ratio\": \"x\"}}}",
      "'x' is not of type 'number'" },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": 1, \"inventories\": {\"VCPU\":"
      " {\"total\": 8, \"foo\": 1}}}",
      "Additional properties are not allowed ('foo' was unexpected)" },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": 1, \"inventories\": {\"vcpu\":"
      " {\"total\": 8}}}",
      NULL },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": 1, \"inventories\": {\"VCPU\":"
      " {\"total\": 8.0, \"step_size\": 1.5}}}",
      "1.5 is not of type 'integer'" },
    { "inv_put", &S_inv_put,
      "{\"resource_provider_generation\": 1, \"inventories\": [], \"x\":"
      " 1}",
      "Additional properties are not allowed ('x' was unexpected)" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\": {\"r"
      "esources\": {\"VCPU\": 1}}}, \"project_id\": \"p\", \"user_id\": "
      "\"u\", \"consumer_generation\": null}",
      NULL },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {}, \"project_id\": \"p\", \"user_id\": \"u\", "
      "\"consumer_generation\": 3}",
      NULL },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {}, \"project_id\": \"p\", \"user_id\": \"u\"}",
      "'consumer_generation' is a required property" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {}, \"project_id\": \"p\", \"user_id\": \"u\", "
      "\"consumer_generation\": \"3\"}",
      "'3' is not of type 'integer', 'null'" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {}, \"project_id\": \"p\", \"user_id\": \"u\", "
      "\"consumer_generation\": 1.5}",
      "1.5 is not of type 'integer', 'null'" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {}, \"project_id\": \"\", \"user_id\": \"u\", \""
      "consumer_generation\": 1}",
      "'' is too short" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {}, \"project_id\": \"ppppppppppppppppppppppppp"
      "ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
      "ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
      "ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
      "pppppppppppppppppppppppppppppppppppp\", \"user_id\": \"u\", \"con"
      "sumer_generation\": 1}",
      "'pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
      "ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
      "ppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"
      "pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp' i"
      "s too long" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {\"pony\": {\"resources\": {\"VCPU\": 1}}}, \"p"
      "roject_id\": \"p\", \"user_id\": \"u\", \"consumer_generation\": "
      "1}",
      "'pony' does not match any of the regexes: '^[0-9a-fA-F-]{36}$'" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\": {\"r"
      "esources\": {\"VCPU\": 0}}}, \"project_id\": \"p\", \"user_id\": "
      "\"u\", \"consumer_generation\": 1}",
      "0 is less than the minimum of 1" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\": {\"r"
      "esources\": {}}}, \"project_id\": \"p\", \"user_id\": \"u\", \"co"
      "nsumer_generation\": 1}",
      "{} does not have enough properties" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\": {\"g"
      "eneration\": 1}}, \"project_id\": \"p\", \"user_id\": \"u\", \"co"
      "nsumer_generation\": 1}",
      "'resources' is a required property" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\": {\"r"
      "esources\": {\"VCPU\": 1}, \"x\": 1}}, \"project_id\": \"p\", \"u"
      "ser_id\": \"u\", \"consumer_generation\": 1}",
      "Additional properties are not allowed ('x' was unexpected)" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": [], \"project_id\": \"p\", \"user_id\": \"u\", "
      "\"consumer_generation\": 1}",
      "[] is not of type 'object'" },
    { "alloc_put_128", &S_alloc_put_128,
      "{\"allocations\": {\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\": {\"r"
      "esources\": {\"VCPU\": true}}}, \"project_id\": \"p\", \"user_id\""
      ": \"u\", \"consumer_generation\": 1}",
      "True is not of type 'integer'" },
    { "alloc_post_128", &S_alloc_post_128,
      "{\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\": {\"allocations\": {}, "
      "\"project_id\": \"p\", \"user_id\": \"u\", \"consumer_generation\""
      ": null}}",
      NULL },
    { "alloc_post_128", &S_alloc_post_128, "{}",
      "{} does not have enough properties" },
    { "alloc_post_128", &S_alloc_post_128, "{\"x\": 1}",
      "'x' does not match any of the regexes: '^[0-9a-fA-F-]{36}$'" },
    { "alloc_post_128", &S_alloc_post_128,
      "{\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\": {\"allocations\": {}, "
      "\"project_id\": \"p\", \"user_id\": \"u\"}}",
      "'consumer_generation' is a required property" },
    { "alloc_post_128", &S_alloc_post_128,
      "{\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\": {\"allocations\": {\"1"
      "2345678-1234-5678-1234-567812345678\": {\"resources\": {\"VCPU\":"
      " -1}}}, \"project_id\": \"p\", \"user_id\": \"u\", \"consumer_gen"
      "eration\": 1}}",
      "-1 is less than the minimum of 1" },
    { "agg_119", &S_agg_119,
      "{\"aggregates\": [\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\"], \"re"
      "source_provider_generation\": 1}",
      NULL },
    { "agg_119", &S_agg_119,
      "{\"aggregates\": [\"4e8e5957-649f-477b-9e5b-f1f75b21c03c\", \"4e8"
      "e5957-649f-477b-9e5b-f1f75b21c03c\"], \"resource_provider_generat"
      "ion\": 1}",
      "['4e8e5957-649f-477b-9e5b-f1f75b21c03c', '4e8e5957-649f-477b-9e5b"
      "-f1f75b21c03c'] has non-unique elements" },
    { "agg_119", &S_agg_119,
      "{\"aggregates\": [\"x\"], \"resource_provider_generation\": 1}",
      "'x' is not a 'uuid'" },
    { "agg_119", &S_agg_119, "{\"aggregates\": []}",
      "'resource_provider_generation' is a required property" },
    { "traits_rp", &S_traits_rp,
      "{\"traits\": [\"CUSTOM_A\", \"\"], \"resource_provider_generation"
      "\": 1}",
      "'' is too short" },
    { "traits_rp", &S_traits_rp,
      "{\"traits\": \"CUSTOM_A\", \"resource_provider_generation\": 1}",
      "'CUSTOM_A' is not of type 'array'" },
};

static void run_cases(apr_pool_t *pool)
{
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        apr_pool_t *p;
        pl_jsonschema_t *s;
        const char *err = NULL, *cerr = NULL;
        json_object *doc;
        apr_status_t rv;
        char name[160];

        apr_pool_create(&p, pool);
        apr_pool_tag(p, "test_case");
        snprintf(name, sizeof(name), "%s: %.100s", cases[i].label,
                 cases[i].doc);
        rv = pl_jsonschema_compile_ex(p, *cases[i].schema, &s, &cerr);
        if (rv != APR_SUCCESS) {
            TAP_OK(0, "%s", name);
            printf("#   compile: %s\n", cerr);
            apr_pool_destroy(p);
            continue;
        }
        doc = json_tokener_parse(cases[i].doc);
        rv = pl_jsonschema_validate(s, doc, p, &err);
        if ((rv == APR_SUCCESS) != (cases[i].expect == NULL)) {
            err = err ? err : "(valid)";
        }
        TAP_IS_STR(rv == APR_SUCCESS ? NULL : err, cases[i].expect, "%s", name);
        json_object_put(doc);
        apr_pool_destroy(p);
    }
}

static void expect_compile_error(apr_pool_t *pool, const char *schema,
                                 const char *want_part)
{
    pl_jsonschema_t *s = NULL;
    const char *err = NULL;
    apr_status_t rv = pl_jsonschema_compile_ex(pool, schema, &s, &err);
    char name[200];

    snprintf(name, sizeof(name), "refused: %.80s", schema);
    TAP_OK(rv == APR_EINVAL && s == NULL && err && strstr(err, want_part), "%s",
           name);
    if (err && !strstr(err, want_part)) {
        printf("#   error: %s (wanted '%s')\n", err, want_part);
    }
}

static void run_compile_errors(apr_pool_t *pool)
{
    pl_jsonschema_t *s;

    expect_compile_error(pool, "{\"type\": \"string\"", "not JSON");
    expect_compile_error(pool, "{\"maxLenght\": 3}",
                         "schema: unsupported keyword 'maxLenght'");
    expect_compile_error(pool, "{\"properties\": {\"a\": {\"type\": \"str\"}}}",
                         "schema/properties/a/type: unknown type 'str'");
    expect_compile_error(pool, "{\"format\": \"email\"}", "'uuid'");
    expect_compile_error(pool, "{\"pattern\": \"^(?=a)\"}",
                         "unsupported group extension");
    expect_compile_error(pool, "{\"pattern\": \"\\\\bword\"}",
                         "unsupported escape");
    expect_compile_error(pool, "{\"pattern\": \"[a\"}",
                         "unterminated character set");
    expect_compile_error(pool, "{\"$ref\": \"#/definitions/nope\"}",
                         "unresolvable reference");
    expect_compile_error(pool, "{\"$ref\": \"other.json#/a\"}",
                         "inside the schema");
    expect_compile_error(pool, "{\"minLength\": -1}", "non-negative");
    expect_compile_error(pool, "{\"items\": [{}]}", "boolean or a schema");
    expect_compile_error(pool, "{\"anyOf\": []}", "non-empty array");
    expect_compile_error(pool, "3", "object or a boolean");
    TAP_OK(pl_jsonschema_compile(pool,
                                 "{\"title\": \"t\", \"description\": "
                                 "\"d\", \"$comment\": \"c\", \"default\": 1}",
                                 &s) == APR_SUCCESS,
           "annotations are accepted");
    TAP_OK(pl_jsonschema_compile(pool, "true", &s) == APR_SUCCESS,
           "boolean schema true");
}

/* str(ValidationError) of jsonschema.validate(doc, schema,
 * format_checker=FormatChecker()) by /usr/bin/python3 (python-jsonschema
 * 4.10): the 400 detail placement writes. */
static const struct {
    const char *name, *schema, *doc, *detail;
} details[] = {
    { "wrap",
      "{\"type\": \"object\", \"properties\": {\"allocations\": {\"type\""
      ": \"array\", \"minItems\": 1, \"items\": {\"type\": \"object\", \""
      "properties\": {\"resource_provider\": {\"type\": \"object\", \"pro"
      "perties\": {\"uuid\": {\"type\": \"string\", \"format\": \"uuid\"}"
      "}, \"additionalProperties\": false, \"required\": [\"uuid\"]}, \"r"
      "esources\": {\"type\": \"object\", \"minProperties\": 1, \"pattern"
      "Properties\": {\"^[A-Z0-9_]+$\": {\"type\": \"integer\", \"minimum"
      "\": 1}}, \"additionalProperties\": false}}, \"required\": [\"resou"
      "rce_provider\", \"resources\"], \"additionalProperties\": false}}}"
      ", \"required\": [\"allocations\"], \"additionalProperties\": false"
      "}",
      "{\"allocations\": [{\"resource_provider\": {\"uuid\": \"11111111-1"
      "111-1111-1111-111111111111\"}, \"resources\": {\"VCPU\": 2, \"MEMO"
      "RY_MB\": 1024}}], \"project_id\": \"p\", \"user_id\": \"u\"}",
      "Additional properties are not allowed ('project_id', 'user_id' wer"
      "e unexpected)\n\nFailed validating 'additionalProperties' in schem"
      "a:\n    {'additionalProperties': False,\n     'properties': {'allo"
      "cations': {'items': {'additionalProperties': False,\n             "
      "                                 'properties': {'resource_provider"
      "': {'additionalProperties': False,\n                              "
      "                                                     'properties':"
      " {'uuid': {'format': 'uuid',\n                                    "
      "                                                                  "
      "     'type': 'string'}},\n                                        "
      "                                           'required': ['uuid'],\n"
      "                                                                  "
      "                 'type': 'object'},\n                             "
      "                                'resources': {'additionalPropertie"
      "s': False,\n                                                      "
      "                     'minProperties': 1,\n                        "
      "                                                   'patternPropert"
      "ies': {'^[A-Z0-9_]+$': {'minimum': 1,\n                           "
      "                                                                  "
      "                     'type': 'integer'}},\n                       "
      "                                                    'type': 'objec"
      "t'}},\n                                              'required': ["
      "'resource_provider',\n                                            "
      "               'resources'],\n                                    "
      "          'type': 'object'},\n                                    "
      "'minItems': 1,\n                                    'type': 'array"
      "'}},\n     'required': ['allocations'],\n     'type': 'object'}\n"
      "\nOn instance:\n    {'allocations': [{'resource_provider': {'uuid'"
      ": '11111111-1111-1111-1111-111111111111'},\n                      "
      "'resources': {'MEMORY_MB': 1024, 'VCPU': 2}}],\n     'project_id':"
      " 'p',\n     'user_id': 'u'}" },
    { "path",
      "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"array"
      "\", \"items\": {\"type\": \"integer\"}}}}",
      "{\"a\": [1, \"x\"]}",
      "'x' is not of type 'integer'\n\nFailed validating 'type' in schema"
      "['properties']['a']['items']:\n    {'type': 'integer'}\n\nOn insta"
      "nce['a'][1]:\n    'x'" },
    { "longstr",
      "{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"str"
      "ing\", \"maxLength\": 10}}}",
      "{\"name\": \"a rather long name with several words in it that goes"
      " well beyond seventy-two characters\"}",
      "'a rather long name with several words in it that goes well beyond"
      " seventy-two characters' is too long\n\nFailed validating 'maxLeng"
      "th' in schema['properties']['name']:\n    {'maxLength': 10, 'type'"
      ": 'string'}\n\nOn instance['name']:\n    ('a rather long name with"
      " several words in it that goes well beyond '\n     'seventy-two ch"
      "aracters')" },
    { "toplongstr", "{\"type\": \"string\", \"maxLength\": 10}",
      "\"a rather long name with several words in it that goes well beyon"
      "d seventy-two characters\"",
      "'a rather long name with several words in it that goes well beyond"
      " seventy-two characters' is too long\n\nFailed validating 'maxLeng"
      "th' in schema:\n    {'maxLength': 10, 'type': 'string'}\n\nOn inst"
      "ance:\n    ('a rather long name with several words in it that goes"
      " well beyond '\n     'seventy-two characters')" },
    { "anyof",
      "{\"type\": \"object\", \"properties\": {\"x\": {\"anyOf\": [{\"typ"
      "e\": \"integer\"}, {\"type\": \"object\", \"required\": [\"y\"]}]}"
      "}}",
      "{\"x\": {\"z\": 1}}",
      "'y' is a required property\n\nFailed validating 'required' in sche"
      "ma[1]:\n    {'required': ['y'], 'type': 'object'}\n\nOn instance:"
      "\n    {'z': 1}" },
    { "sorted", "{\"type\": \"integer\", \"minimum\": 1, \"maximum\": 10}", "0",
      "0 is less than the minimum of 1\n\nFailed validating 'minimum' in "
      "schema:\n    {'maximum': 10, 'minimum': 1, 'type': 'integer'}\n\nO"
      "n instance:\n    0" },
};

/* The detail of a 400: the message, then the schema and the instance as
 * pprint.pformat(width=72) prints them, with the error's paths. */
static void run_details(apr_pool_t *pool)
{
    size_t i;

    for (i = 0; i < sizeof(details) / sizeof(details[0]); i++) {
        pl_jsonschema_t *s = NULL;
        json_object *doc = json_tokener_parse(details[i].doc);
        const char *err = NULL;

        pl_jsonschema_compile(pool, details[i].schema, &s);
        TAP_OK(s != NULL, "details %s: schema compiles", details[i].name);
        if (s) {
            pl_jsonschema_validate_detail(s, doc, pool, &err);
            TAP_IS_STR(err, details[i].detail, "details %s: as Python's",
                       details[i].name);
        }
        json_object_put(doc);
    }
}

static void run_repr(apr_pool_t *pool)
{
    json_object *o = json_object_new_string_len("a\0b", 3);

    TAP_IS_STR(pl_jsonschema_repr(pool, o), "'a\\x00b'", "repr: NUL inside");
    json_object_put(o);
    o = json_object_new_string("\xff\xc3(");
    TAP_IS_STR(pl_jsonschema_repr(pool, o), "'\\xff\\xc3('",
               "repr: bytes that are not UTF-8");
    json_object_put(o);
    TAP_IS_STR(pl_jsonschema_repr(pool, NULL), "None", "repr: null");
}

/* Hostile documents: big, deep, long. None may crash, recurse without
 * bound or take long. */
static void run_hostile(apr_pool_t *pool)
{
    pl_jsonschema_t *s;
    json_object *arr, *deep, *cur;
    const char *err;
    apr_status_t rv;
    clock_t t0;
    char *big;
    int i;

    /* 200000 items, all invalid: stops at the first strong error */
    pl_jsonschema_compile(pool, S_items, &s);
    arr = json_object_new_array();
    for (i = 0; i < 200000; i++) {
        json_object_array_add(arr, json_object_new_int(i));
    }
    t0 = clock();
    rv = pl_jsonschema_validate(s, arr, pool, &err);
    TAP_OK(rv == APR_EINVAL && strcmp(err, "0 is not of type 'string'") == 0,
           "200000 invalid items: first item reported");
    /* 200000 distinct items: uniqueItems in O(n log n) */
    pl_jsonschema_compile(pool, S_uniq, &s);
    rv = pl_jsonschema_validate(s, arr, pool, &err);
    TAP_OK(rv == APR_SUCCESS, "200000 distinct items are unique");
    json_object_array_add(arr, json_object_new_double(199999.0));
    rv = pl_jsonschema_validate(s, arr, pool, &err);
    TAP_OK(rv == APR_EINVAL && strstr(err, " has non-unique elements"),
           "199999 and 199999.0 are the same item");
    TAP_OK((clock() - t0) < 20 * CLOCKS_PER_SEC, "big arrays are fast");
    json_object_put(arr);

    /* 100000 nested arrays against a shallow schema and a recursive one */
    deep = json_object_new_array();
    cur = deep;
    for (i = 0; i < 100000; i++) {
        json_object *n = json_object_new_array();

        json_object_array_add(cur, n);
        cur = n;
    }
    pl_jsonschema_compile(pool,
                          "{\"type\": \"array\", \"items\": "
                          "{\"type\": \"array\", \"maxItems\": 0}}",
                          &s);
    rv = pl_jsonschema_validate(s, deep, pool, &err);
    TAP_OK(rv == APR_EINVAL && strncmp(err, "[[[[", 4) == 0 &&
               strstr(err, " is too long"),
           "deep document, shallow schema");
    pl_jsonschema_compile(pool,
                          "{\"type\": \"array\", \"items\": "
                          "{\"$ref\": \"#\"}, \"maxItems\": 0}",
                          &s);
    rv = pl_jsonschema_validate(s, deep, pool, &err);
    TAP_OK(rv == APR_EINVAL, "deep document, recursive schema: refused");
    json_object_put(deep);

    /* 10 MB string */
    big = malloc(10 * 1024 * 1024 + 1);
    memset(big, 'A', 10 * 1024 * 1024);
    big[10 * 1024 * 1024] = '\0';
    cur = json_object_new_string(big);
    pl_jsonschema_compile(pool, S_pat, &s);
    t0 = clock();
    rv = pl_jsonschema_validate(s, cur, pool, &err);
    TAP_OK(rv == APR_SUCCESS, "10 MB string matches the pattern");
    pl_jsonschema_compile(pool, S_len, &s);
    rv = pl_jsonschema_validate_detail(s, cur, pool, &err);
    /* shown cut, in the message and after "On instance" (upstream echoes
     * all 10 MB twice) */
    TAP_OK(rv == APR_EINVAL && strlen(err) < 4096 &&
               strncmp(err, "'AAAA", 5) == 0 &&
               strstr(err, "A... (cut: a str of 10485760 characters) is too "
                           "long\n") &&
               strstr(err, "On instance:\n    'AAAA"),
           "10 MB string is too long, and shown cut");
    TAP_OK((clock() - t0) < 20 * CLOCKS_PER_SEC, "long strings are fast");
    json_object_put(cur);
    free(big);
}

/* A value of the document up to 1024 bytes of repr is shown whole, as
 * upstream shows it; past that, cut and said so. */
static void run_cut(apr_pool_t *pool)
{
    pl_jsonschema_t *s;
    const char *err = NULL;
    json_object *o, *list;
    char key[1100], want[1200];
    int i;

    pl_jsonschema_compile(pool, "{\"type\": \"object\"}", &s);
    /* ['aaa...'] of a repr of exactly 1024 bytes, then one more */
    memset(key, 'a', 1020);
    key[1020] = '\0';
    list = json_object_new_array();
    json_object_array_add(list, json_object_new_string(key));
    pl_jsonschema_validate(s, list, pool, &err);
    snprintf(want, sizeof(want), "['%s'] is not of type 'object'", key);
    TAP_IS_STR(err, want, "a repr of 1024 bytes is whole");
    json_object_put(list);
    key[1020] = 'a';
    key[1021] = '\0';
    list = json_object_new_array();
    json_object_array_add(list, json_object_new_string(key));
    pl_jsonschema_validate(s, list, pool, &err);
    /* the string fits, the closing bracket does not */
    snprintf(want, sizeof(want),
             "['%s'... (cut: a list of 1 item) is not of type 'object'", key);
    TAP_IS_STR(err, want, "a repr of 1025 bytes is cut");
    json_object_put(list);

    /* 3,000,000 items (nulls: cheap to build): the message and the
     * trailer stay small */
    list = json_object_new_array();
    for (i = 0; i < 3000000; i++) {
        json_object_array_add(list, NULL);
    }
    pl_jsonschema_validate_detail(s, list, pool, &err);
    TAP_OK(err && strlen(err) < 4096 &&
               strncmp(err, "[None, None, ", 13) == 0 &&
               strstr(err, "... (cut: a list of 3000000 items) is not of "
                           "type 'object'\n") &&
               strstr(err, "On instance:\n    [None, None, "),
           "3,000,000 items are shown cut (%zu bytes)", err ? strlen(err) : 0);
    json_object_put(list);

    /* 100,000 unexpected properties with long names */
    pl_jsonschema_compile(pool,
                          "{\"type\": \"object\", \"additionalProperties\": "
                          "false}",
                          &s);
    o = json_object_new_object();
    for (i = 0; i < 100000; i++) {
        snprintf(key, sizeof(key), "k%06d%0200d", i, 0);
        json_object_object_add(o, key, json_object_new_int(1));
    }
    pl_jsonschema_validate_detail(s, o, pool, &err);
    TAP_OK(err && strlen(err) < 4096 &&
               strncmp(err, "Additional properties are not allowed ('k000000",
                       47) == 0 &&
               strstr(err, "... (cut: 100000 properties) were unexpected)"),
           "100,000 unexpected properties are named cut (%zu bytes)",
           err ? strlen(err) : 0);
    json_object_put(o);

    /* a key of 100,000 characters on the error's path */
    pl_jsonschema_compile(pool,
                          "{\"additionalProperties\": {\"type\": "
                          "\"integer\"}}",
                          &s);
    o = json_object_new_object();
    {
        char *big = apr_palloc(pool, 100001);

        memset(big, 'k', 100000);
        big[100000] = '\0';
        json_object_object_add(o, big, json_object_new_string("x"));
    }
    pl_jsonschema_validate_detail(s, o, pool, &err);
    TAP_OK(err && strlen(err) < 8192 &&
               strstr(err, "kkk... (cut: a str of 100000 characters)]:\n    "
                           "'x'"),
           "a long key on the path is cut (%zu bytes)", err ? strlen(err) : 0);
    json_object_put(o);
}

int main(void)
{
    apr_pool_t *pool;

    apr_initialize();
    apr_pool_create(&pool, NULL);
    apr_pool_tag(pool, "test_jsonschema");
    run_cases(pool);
    run_cut(pool);
    run_compile_errors(pool);
    run_details(pool);
    run_repr(pool);
    run_hostile(pool);
    apr_pool_destroy(pool);
    apr_terminate();
    return tap_done();
}
