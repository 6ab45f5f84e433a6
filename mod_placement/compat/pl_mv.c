/* Licensed under the Apache License, Version 2.0.
 *
 * pl_mv.c: the OpenStack-API-Version request header, read as placement
 * 8.0.0 reads it (the microversion_parse library and its middleware).
 *
 * The header is a comma-separated list of "<service> <version>" entries;
 * the LAST entry whose service is "placement" (any case) wins, entries
 * that are not two words are skipped, and no entry at all means 1.0.
 * "latest" means 1.39. A version is two Python int()s around the first
 * '.', so " 1 . 05" is 1.5 and "1.+5" too; anything int() refuses is a
 * 400, a version outside 1.0-1.39 a 406. Python sees the header decoded
 * as latin-1, so we do the same before looking at it: its whitespace
 * includes 0x85 and 0xa0, and its error texts echo the header in UTF-8.
 *
 * The versions, one comment each (placement/microversion.py VERSIONS):
 * 1.0  initial
 * 1.1  GET/PUT /resource_providers/{uuid}/aggregates
 * 1.2  /resource_classes
 * 1.3  member_of on GET /resource_providers
 * 1.4  resources on GET /resource_providers
 * 1.5  DELETE /resource_providers/{uuid}/inventories
 * 1.6  /traits and /resource_providers/{uuid}/traits
 * 1.7  PUT /resource_classes/{name} is a bodiless create-or-update
 * 1.8  project_id and user_id required in PUT /allocations
 * 1.9  GET /usages
 * 1.10 GET /allocation_candidates
 * 1.11 "allocations" link on resource providers
 * 1.12 dict form of allocations in PUT/GET allocations and candidates
 * 1.13 POST /allocations
 * 1.14 parent and root provider uuids; in_tree on GET /resource_providers
 * 1.15 last-modified and cache-control headers
 * 1.16 limit on GET /allocation_candidates
 * 1.17 required on GET /allocation_candidates; traits in summaries
 * 1.18 required on GET /resource_providers
 * 1.19 generation and conflict detection in provider aggregates
 * 1.20 POST /resource_providers returns 200 and the provider
 * 1.21 member_of=in: on GET /allocation_candidates
 * 1.22 forbidden traits (!TRAIT) in required
 * 1.23 error codes in error responses
 * 1.24 repeated member_of on GET /resource_providers
 * 1.25 granular (numbered) request groups in allocation candidates
 * 1.26 inventory reserved may equal total
 * 1.27 all inventories in provider_summaries
 * 1.28 consumer generations
 * 1.29 nested providers in GET /allocation_candidates
 * 1.30 POST /reshaper
 * 1.31 in_tree and in_treeN on GET /allocation_candidates
 * 1.32 forbidden aggregates (!member_of)
 * 1.33 string request group suffixes [A-Za-z0-9_-]{1,64}
 * 1.34 mappings in allocation requests
 * 1.35 root_required on GET /allocation_candidates
 * 1.36 same_subtree, resourceless request groups
 * 1.37 re-parenting and un-parenting providers
 * 1.38 consumer_type in allocations and usages
 * 1.39 any-traits (required=in:A,B)
 */
#include <stdlib.h>
#include <string.h>

#include <apr_cstr.h>
#include <apr_strings.h>

#include "pl_mv.h"
#include "pl_py.h"

#define MV_SERVICE "placement"

/* The header, read as latin-1, in UTF-8. */
static char *mv_latin1_to_utf8(apr_pool_t *p, const char *s)
{
    char *out = apr_palloc(p, strlen(s) * 2 + 1), *o = out;
    const unsigned char *u;

    for (u = (const unsigned char *)s; *u; u++) {
        if (*u < 0x80) {
            *o++ = (char)*u;
        }
        else {
            *o++ = (char)(0xc0 | (*u >> 6));
            *o++ = (char)(0x80 | (*u & 0x3f));
        }
    }
    *o = '\0';
    return out;
}

/* The version string of the last placement entry of hdr (UTF-8), or
 * NULL. Mirrors microversion_parse.check_standard_header(). */
static const char *mv_find(apr_pool_t *p, const char *hdr)
{
    const char *end = hdr + strlen(hdr);

    for (;;) {
        const char *start = end, *entry, *w;
        apr_size_t n;

        /* the entry after the last ',' before end */
        while (start > hdr && start[-1] != ',') {
            start--;
        }
        entry = pl_py_strip(p, start, end - start);
        /* service, version = entry.split(None, 1); one word: skipped */
        for (w = entry; *w && pl_py_space(w) == 0; w += pl_py_u8_len(w)) {
        }
        if (*w && (apr_size_t)(w - entry) == strlen(MV_SERVICE) &&
            apr_cstr_casecmpn(entry, MV_SERVICE, w - entry) == 0) {
            while ((n = pl_py_space(w)) > 0) {
                w += n;
            }
            return w; /* entry is stripped: w is too */
        }
        if (start == hdr) {
            return NULL;
        }
        end = start - 1; /* the ',' */
    }
}

/* int(part) for the version string vs, as in parse_version_string(). */
static apr_status_t mv_int(apr_pool_t *p, const char *vs, const char *part,
                           int *pneg, const char **pdigits, const char **perr)
{
    const char *err;

    if (pl_py_int(p, part, pneg, pdigits, &err) != APR_SUCCESS) {
        *perr = apr_psprintf(p,
                             "Invalid microversion: invalid version "
                             "string: %s; %s",
                             vs, err);
        return APR_EINVAL;
    }
    return APR_SUCCESS;
}

apr_status_t pl_mv_parse(apr_pool_t *p, const char *header, int *pmv,
                         const char **perr)
{
    const char *vs, *dot, *digits;
    int neg, major, minor;
    apr_status_t rv;

    *pmv = PL_MV_MIN;
    if (header == NULL) {
        return APR_SUCCESS;
    }
    vs = mv_find(p, mv_latin1_to_utf8(p, header));
    if (vs == NULL) {
        return APR_SUCCESS;
    }
    if (strcmp(vs, "latest") == 0) {
        *pmv = PL_MV_MAX;
        return APR_SUCCESS;
    }

    /* Version(*(int(v) for v in vs.split('.', 1))) */
    dot = strchr(vs, '.');
    rv = mv_int(p, vs, dot ? apr_pstrmemdup(p, vs, dot - vs) : vs, &neg,
                &digits, perr);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    major = (!neg && strlen(digits) <= 3) ? atoi(digits) : -1;
    if (dot == NULL) {
        *perr = apr_psprintf(p,
                             "Invalid microversion: invalid version "
                             "string: %s; Version.__new__() missing 1 "
                             "required positional argument: 'minor'",
                             vs);
        return APR_EINVAL;
    }
    rv = mv_int(p, vs, dot + 1, &neg, &digits, perr);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    minor = (!neg && strlen(digits) <= 3) ? atoi(digits) : -1;

    /* str(Version) must be one of VERSIONS */
    if (major != 1 || minor < 0 || PL_MV(1, minor) > PL_MV_MAX) {
        *perr = apr_psprintf(p,
                             "Invalid microversion: Unacceptable version "
                             "header: %s",
                             vs);
        return PL_ENOTACCEPTABLE;
    }
    *pmv = PL_MV(1, minor);
    return APR_SUCCESS;
}

const char *pl_mv_str(apr_pool_t *p, int mv)
{
    return apr_psprintf(p, "%d.%d", mv / 1000, mv % 1000);
}
