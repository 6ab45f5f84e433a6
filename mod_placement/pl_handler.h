/* Licensed under the Apache License, Version 2.0.
 *
 * pl_handler.h: the "placement" handler (pl_handler.c), the pipeline a
 * request walks from the glue of httpd/ into the routes of api/.
 */
#ifndef PL_HANDLER_H
#define PL_HANDLER_H

#include <httpd.h>

/** The "placement" handler: DECLINED for any other handler name. */
int pl_handler(request_rec *r);

#endif /* PL_HANDLER_H */
