/* Licensed under the Apache License, Version 2.0.
 *
 * pl_req.h: one placement request as the api_* handlers see it, and the
 * helpers they use to read it and to answer. A handler returns the HTTP
 * status to send: 2xx after pl_reply_json / pl_reply_empty, or the value
 * of pl_err() for a failure; pl_handler.c renders everything else
 * (version headers, request id, error bodies) in one place.
 */
#ifndef PL_REQ_H
#define PL_REQ_H

#include <httpd.h>
#include <json-c/json.h>

#include "pl_config.h"
#include "pl_db.h"
#include "pl_err.h"
#include "pl_mv.h"
#include "pl_jsonschema.h"
#include "pl_log.h"

#define PL_MAX_PATH_PARAMS 2

/* The largest request body a route takes (pl_route_t's max_body), in
 * bytes: what the largest real request of the route needs, with room.
 * PlacementMaxBodySize replaces them all (docs/directives.md). */
#define PL_BODY_NONE ((apr_size_t)0) /* none: PL_BODY_SMALL if read */
/* one resource class, provider or inventory */
#define PL_BODY_SMALL ((apr_size_t)64 * 1024)
/* the inventories of a provider, the allocations of one consumer */
#define PL_BODY_MEDIUM ((apr_size_t)1024 * 1024)
/* 100,000 traits or aggregates, the allocations of many consumers, a
 * reshape of a big host */
#define PL_BODY_LARGE ((apr_size_t)8 * 1024 * 1024)

typedef struct pl_arg_t {
    const char *key;
    const char *value;
    apr_size_t key_len;   /* decoded lengths: a %00 makes */
    apr_size_t value_len; /* them longer than strlen */
} pl_arg_t;

typedef struct pl_req_t {
    request_rec *r;
    apr_pool_t *pool; /* pl_memory_request_pool: a child of r->pool */
    const pl_dir_conf_t *conf;
    int mv;                                 /* asked microversion */
    int mv_set;                             /* header parsed successfully */
    const char *prefix;                     /* mount point, "" at / */
    const char *path;                       /* below the mount point */
    apr_array_header_t *args;               /* pl_arg_t, decoded, in order */
    const char *params[PL_MAX_PATH_PARAMS]; /* {uuid}, {name}, ... */
    const char *request_id;                 /* req-<uuid4>, ours */
    const char *global_request_id;          /* the caller's, when well formed */
    const struct pl_route_t *route;         /* matched route, for the logs */
    apr_size_t body_max; /* the largest body it takes (0: PL_BODY_SMALL) */

    /* identity (noauth2 or keystone): a token is scoped to the system
     * (system_scope_all), a domain (domain_id) or a project (project_id) */
    const char *user_id;
    const char *project_id;
    const char *domain_id;
    apr_array_header_t *roles; /* const char * */
    int system_scope_all;      /* system_scope is "all" */
    const char *system_scope;  /* as sent (noauth2), or NULL */
    /* the X-Service-Token's identity when Keystone accepted it (oslo's
     * service_user_id, service_project_id, service_roles), else NULL */
    const char *service_user_id;
    const char *service_project_id;
    apr_array_header_t *service_roles;

    pl_db_t *db;  /* acquired on first use */
    pl_log_t log; /* the library's log lines, under this request's LogLevel */

    /* the answer */
    json_object *body;
    const char *body_text; /* or a body already written */
    apr_size_t body_len;
    void (*body_writer)(struct pl_req_t *req, void *baton);
    void *body_writer_baton;  /* or one written after the headers */
    apr_time_t last_modified; /* 0: none */
    const char *location;     /* path below the mount point */
    const char *err_code;
    const char *err_detail;
    int err_escaped; /* see pl_err_escaped */
} pl_req_t;

typedef int (*pl_handler_fn)(pl_req_t *req);

/** Set req->log up for this request (pl_req_log.c). */
void pl_req_log_init(pl_req_t *req);

/** Record a failure; returns status so handlers can `return pl_err(...)`.
 *  code may be NULL for PL_ERRC_DEFAULT. */
int pl_err(pl_req_t *req, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** Mark the failure recorded as one that upstream raises past webob's
 *  wsgify (an object's NotFound, a policy refusal, a path no route
 *  matches): its microversion middleware then adds the version header
 *  but no Vary. Returns status: `return pl_err_escaped(req, pl_err(...))`. */
int pl_err_escaped(pl_req_t *req, int status);

/** Map a store status to an HTTP failure with a generic detail, logging
 *  database errors (5xx) with the driver's text. */
int pl_err_store(pl_req_t *req, apr_status_t rv, const char *what);

/** The last value of query parameter key, or NULL. */
const char *pl_arg_last(const pl_req_t *req, const char *key);
/** All values of key, in order (const char *). */
apr_array_header_t *pl_args(const pl_req_t *req, const char *key);

/**
 * Validate the query string against a JSON schema as upstream does (a dict
 * of parameter -> last value). On failure records the 400 and returns it;
 * returns 0 on success. A NULL schema is a 500, never "valid".
 */
int pl_check_query(pl_req_t *req, const pl_jsonschema_t *schema);

/** Records and returns the 500 of a missing (NULL) schema. */
int pl_schema_missing(pl_req_t *req);

/**
 * upstream's util.require_content('application/json'), checked before
 * policy: 0, or the recorded 415.
 */
int pl_require_json(pl_req_t *req);

/**
 * Read the body: 415 unless Content-Type is application/json; 413 for a
 * body over req->body_max or one whose JSON would cost more than 48 times
 * its size to parse; 400 for text that is no UTF-8 (Python's words),
 * malformed JSON (nested deeper than 64 too), an escaped NUL or lone
 * surrogate, or a body the schema refuses. Returns 0 and *pdoc (bound to
 * the request pool) or the recorded error status. A NULL schema is a 500
 * before anything is read, never "valid".
 */
int pl_read_json(pl_req_t *req, const pl_jsonschema_t *schema,
                 json_object **pdoc);

/**
 * The compiled form of a JSON schema of pl_schemas.h (compiled at
 * start-up by pl_schema_compile_all), found by the text's address, into
 * *pschema. Returns 0, or for any other text (a bug) the 500 it records.
 */
int pl_schema(pl_req_t *req, const char *json_text,
              const pl_jsonschema_t **pschema);

/**
 * Called from post_config: compile every text of pl_schemas_all into
 * pconf. On failure returns the error and sets *failed to the text that
 * does not compile (the server must refuse to start).
 */
apr_status_t pl_schema_compile_all(apr_pool_t *pconf, const char **failed);

/** post_config: take mod_dbd's ap_dbd_acquire, which pl_req_db uses. */
void pl_req_post_config(void);

/** The database handle of this request (mod_dbd) into *pdb. Returns 0,
 *  or the 500 it records when there is none. */
int pl_req_db(pl_req_t *req, pl_db_t **pdb);

/** Answer with a JSON body (the request pool owns obj). */
int pl_reply_json(pl_req_t *req, int status, json_object *obj);
/** A JSON body written by writer(req, baton) once the status and the
 *  headers are set (large answers, sent as they are produced). */
int pl_reply_stream(pl_req_t *req, int status,
                    void (*writer)(struct pl_req_t *req, void *baton),
                    void *baton);

/** Answer without a body (204, or 201 with Location). */
int pl_reply_empty(pl_req_t *req, int status);

/** The link to path below the mount point, as clients see it
 *  ("/placement" + path). */
const char *pl_link(const pl_req_t *req, const char *path);

/** Bind a json-c root to the request pool (json_object_put on cleanup). */
json_object *pl_json_own(pl_req_t *req, json_object *obj);

/** Note a timestamp column value (SQL text) for last-modified (1.15+). */
void pl_req_touch(pl_req_t *req, const char *sql_time);

/** A JSON number for a float as Python prints it (shortest repr). */
json_object *pl_json_float(double d);

#endif /* PL_REQ_H */
