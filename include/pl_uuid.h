/* Licensed under the Apache License, Version 2.0.
 *
 * pl_uuid.h: UUID validation, normalization and generation, with the
 * rules placement 8.0.0 applies. Placement validates every UUID it
 * receives (jsonschema "format": "uuid" in bodies and query strings, and
 * explicit checks of query and path parameters) with one function, oslo's
 * uuidutils.is_uuid_like (placement registers it as the jsonschema "uuid"
 * format checker, replacing jsonschema's stricter RFC 4122 one), so there
 * is one notion of "uuid-like" here too: pl_uuid_is_like().
 */
#ifndef PL_UUID_H
#define PL_UUID_H

#include <apr_pools.h>
#include <apr_errno.h>

/**
 * Is s uuid-like, as oslo's uuidutils.is_uuid_like() says? That is: after
 * removing every "urn:" and then every "uuid:" anywhere in the string,
 * stripping any number of '{' and '}' from both ends and removing every
 * '-', exactly 32 hexadecimal digits of either case remain. So
 * "{urn:uuid:ABCDEF01-...}", "0123456789abcdef0123456789abcdef" and
 * "--0123-4567..." are all accepted. NULL is not uuid-like.
 * Returns 1 or 0.
 */
int pl_uuid_is_like(const char *s);

/**
 * Validate in with pl_uuid_is_like() and return in *pout its canonical
 * form, as Python's str(uuid.UUID(in)): lower case, dashed 8-4-4-4-12,
 * allocated from p.
 * Returns APR_SUCCESS, or APR_EINVAL (*pout untouched) if in is not
 * uuid-like.
 */
apr_status_t pl_uuid_normalize(apr_pool_t *p, const char *in,
                               const char **pout);

/** A new random (version 4) UUID, lower case and dashed, from p. */
const char *pl_uuid_new(apr_pool_t *p);

/**
 * A new request id as oslo.middleware makes them: "req-" followed by a
 * new random UUID (lower case, dashed), allocated from p.
 */
const char *pl_uuid_request_id(apr_pool_t *p);

#endif /* PL_UUID_H */
