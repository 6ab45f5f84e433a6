/* Licensed under the Apache License, Version 2.0.
 *
 * pl_cors.h: CORS, as oslo.middleware's CORS middleware (5.0.0) does it
 * in front of placement 8.0.0 when [cors] allowed_origin is set: preflight
 * requests answered before authentication, and the Access-Control-* headers
 * added to every other answer, errors included. With no allowed origin
 * configured nothing here changes any answer.
 */
#ifndef PL_CORS_H
#define PL_CORS_H

#include <httpd.h>

#include "pl_config.h"

/**
 * Register the output filter that adds the CORS headers of an actual
 * request. Call from the module's register_hooks.
 */
void pl_cors_register(void);

/**
 * Start CORS for a request the placement handler serves; call before
 * authentication, once the request id header is set. Does nothing when no
 * allowed origin is configured.
 *
 * An OPTIONS request is answered here whatever its headers: upstream's
 * CORS layer replaces the 401/405 that placement gives OPTIONS with an
 * empty 200, and adds the preflight headers only when origin, method and
 * headers are all allowed.
 * For any other method with an allowed Origin, a filter is added that puts
 * Access-Control-Allow-Origin, -Allow-Credentials, -Expose-Headers and
 * Vary: Origin on the answer, whatever its status.
 *
 * @return 1 when the answer is complete (the handler returns OK at once),
 *         0 when the request goes on as usual
 */
int pl_cors_start(request_rec *r, const pl_dir_conf_t *c);

#endif /* PL_CORS_H */
