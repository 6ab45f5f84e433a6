/* Licensed under the Apache License, Version 2.0.
 *
 * pl_api_allocation.h: what api_allocation.c shares with api_reshaper.c:
 * the JSON schema pieces of allocation bodies (placement's
 * schemas/allocation.py) and the steps that turn a POST-style
 * allocations document into a store write (upstream's
 * inspect_consumers and create_allocation_list).
 */
#ifndef PL_API_ALLOCATION_H
#define PL_API_ALLOCATION_H

#include "pl_req.h"
#include "pl_store_allocation.h"

#define PL_SCH_UUID_PAT "\"^[0-9a-fA-F-]{36}$\""
#define PL_SCH_RC_PAT "\"^[A-Z0-9_]+$\""

#define PL_SCH_RESOURCES \
    "{\"type\": \"object\", \"minProperties\": 1, \"patternProperties\": {" \
    PL_SCH_RC_PAT ": {\"type\": \"integer\", \"minimum\": 1}}, " \
    "\"additionalProperties\": false}"

#define PL_SCH_ID_STRING \
    "{\"type\": \"string\", \"minLength\": 1, \"maxLength\": 255}"

/* ALLOCATION_SCHEMA_V1_12 with allocations' minProperties as given,
 * then extra properties and extra required names */
#define PL_SCH_DICT(minprops, props, req) \
    "{\"type\": \"object\", \"properties\": {\"allocations\": {" \
    "\"type\": \"object\", \"minProperties\": " minprops ", " \
    "\"patternProperties\": {" PL_SCH_UUID_PAT ": {\"type\": \"object\", " \
    "\"properties\": {\"generation\": {\"type\": \"integer\"}, " \
    "\"resources\": " PL_SCH_RESOURCES "}, \"required\": [\"resources\"], " \
    "\"additionalProperties\": false}}, \"additionalProperties\": false}, " \
    "\"project_id\": " PL_SCH_ID_STRING ", \"user_id\": " PL_SCH_ID_STRING \
    props "}, \"additionalProperties\": false, \"required\": " \
    "[\"allocations\", \"project_id\", \"user_id\"" req "]}"

#define PL_SCH_GEN_PROP \
    ", \"consumer_generation\": {\"type\": [\"integer\", \"null\"], " \
    "\"additionalProperties\": false}"
#define PL_SCH_GEN_REQ ", \"consumer_generation\""
#define PL_SCH_MAPPINGS_PROP \
    ", \"mappings\": {\"type\": \"object\", \"minProperties\": 1, " \
    "\"patternProperties\": {\"[a-zA-Z0-9_-]{1,64}\": {\"type\": " \
    "\"array\", \"minItems\": 1, \"items\": {\"type\": \"string\", " \
    "\"format\": \"uuid\"}}}}"
#define PL_SCH_TYPE_PROP \
    ", \"consumer_type\": {\"type\": \"string\", \"pattern\": " \
    PL_SCH_RC_PAT ", \"minLength\": 1, \"maxLength\": 255}"
#define PL_SCH_TYPE_REQ ", \"consumer_type\""

#define PL_SCH_DICT_1_12 PL_SCH_DICT("1", "", "")
#define PL_SCH_DELETABLE PL_SCH_DICT("0", "", "")
#define PL_SCH_DICT_1_28 PL_SCH_DICT("0", PL_SCH_GEN_PROP, PL_SCH_GEN_REQ)
#define PL_SCH_DICT_1_34 \
    PL_SCH_DICT("0", PL_SCH_GEN_PROP PL_SCH_MAPPINGS_PROP, PL_SCH_GEN_REQ)
#define PL_SCH_DICT_1_38 \
    PL_SCH_DICT("0", PL_SCH_GEN_PROP PL_SCH_MAPPINGS_PROP PL_SCH_TYPE_PROP, \
                PL_SCH_GEN_REQ PL_SCH_TYPE_REQ)

/* POST /allocations: consumer uuid -> one consumer's document */
#define PL_SCH_POST(minprops, each) \
    "{\"type\": \"object\", \"minProperties\": " minprops ", " \
    "\"additionalProperties\": false, \"patternProperties\": {" \
    PL_SCH_UUID_PAT ": " each "}}"

/**
 * For a POST-style document (consumer uuid -> {allocations, project_id,
 * user_id[, consumer_generation][, consumer_type]}): ensure every consumer
 * (creating projects, users, types and consumers as needed, checking
 * consumer generations from 1.28), then build the items of the write,
 * looking providers up through provs (uuid -> pl_provider_t *, shared
 * with the caller). Fills w->consumers and w->items. Returns 0 or the
 * HTTP error recorded.
 */
int pl_api_alloc_prepare(pl_req_t *req, json_object *doc, apr_hash_t *provs,
                         pl_alloc_write_t *w);

/** Delete the consumers w created, after a failed write. */
void pl_api_alloc_undo(pl_req_t *req, pl_alloc_write_t *w);

/** Log the retries of a write (debug). */
void pl_api_alloc_log(pl_req_t *req, const pl_alloc_write_t *w);

#endif /* PL_API_ALLOCATION_H */
