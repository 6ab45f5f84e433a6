/* Licensed under the Apache License, Version 2.0.
 *
 * pl_private.h: included by every httpd-facing file of mod_placement, so
 * that logging is tagged with the module (LogLevel placement:trace3 works)
 * and messages carry our own PLnnnnn numbers (docs/log-numbers).
 */
#ifndef PL_PRIVATE_H
#define PL_PRIVATE_H

#include <httpd.h>
#include <http_config.h>
#include <http_log.h>

#include "pl_log.h" /* PL_LOGNO, the library's and the glue's */

extern module AP_MODULE_DECLARE_DATA placement_module;

#if defined(APLOG_USE_MODULE) && !defined(PL_MODULE_MAIN)
APLOG_USE_MODULE(placement);
#endif

#endif /* PL_PRIVATE_H */
