/* Licensed under the Apache License, Version 2.0.
 *
 * pl_config.h: the per-directory configuration of mod_placement (the
 * Placement* directives) and its getters. Unset values are -1 / NULL and
 * the defaults live in the getters, so merging stays "add if set".
 */
#ifndef PL_CONFIG_H
#define PL_CONFIG_H

#include <httpd.h>
#include <http_config.h>

typedef enum {
    PL_AUTH_UNSET = -1,
    PL_AUTH_NOAUTH2 = 0,
    PL_AUTH_KEYSTONE = 1
} pl_auth_e;

typedef struct pl_dir_conf_t {
    /* the <Location> this config belongs to: the mount prefix */
    const char *dir;
    /* PlacementAuthStrategy */
    int auth;
    /* PlacementAllocationConflictRetryCount */
    int conflict_retries;
    /* PlacementRandomizeCandidates */
    int randomize;
    /* PlacementMaxAllocationCandidates, -1 unlimited */
    int max_candidates;
    /* PlacementIncompleteConsumerProject / ...User */
    const char *incomplete_project;
    const char *incomplete_user;
    /* PlacementPolicy overrides: rule name -> check string */
    apr_table_t *policy;
} pl_dir_conf_t;

extern const command_rec pl_cmds[];

void *pl_config_create_dir(apr_pool_t *p, char *dir);
void *pl_config_merge_dir(apr_pool_t *p, void *basev, void *addv);

int pl_config_auth(const pl_dir_conf_t *c);
int pl_config_conflict_retries(const pl_dir_conf_t *c);
int pl_config_randomize(const pl_dir_conf_t *c);
int pl_config_max_candidates(const pl_dir_conf_t *c);
const char *pl_config_incomplete_project(const pl_dir_conf_t *c);
const char *pl_config_incomplete_user(const pl_dir_conf_t *c);

#endif /* PL_CONFIG_H */
