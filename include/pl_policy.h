/* Licensed under the Apache License, Version 2.0.
 *
 * pl_policy.h: policy files (oslo.policy YAML or JSON) read at
 * configuration time.
 */
#ifndef PL_POLICY_H
#define PL_POLICY_H

#include <apr_pools.h>
#include <apr_tables.h>

/**
 * Read an oslo.policy file: a mapping of rule name -> check string.
 * Returns the rules (allocated from p), or NULL with *perr set to a
 * message naming the file and line.
 */
apr_table_t *pl_policy_file_load(apr_pool_t *p, const char *path,
                                 const char **perr);

#endif /* PL_POLICY_H */
