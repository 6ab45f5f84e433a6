/* Licensed under the Apache License, Version 2.0.
 *
 * pl_auth.h: authentication of a placement request (noauth2 or
 * Keystone), before anything else reads it.
 */
#ifndef PL_AUTH_H
#define PL_AUTH_H

#include "pl_req.h"

/**
 * Establish who is calling and fill req's identity. Returns 0, or the
 * status of a refusal whose whole body is in req->body_text (401 with
 * WWW-Authenticate, 503 when Keystone cannot be asked): these come from
 * outside placement's error formatter upstream, so they are sent as is.
 */
int pl_auth_identify(pl_req_t *req);

#endif /* PL_AUTH_H */
