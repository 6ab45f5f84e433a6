/* Licensed under the Apache License, Version 2.0.
 *
 * pl_policy_sources.c: the policy file and policy directory of a location
 * as one set of rules, and a cheap fingerprint of them, so that a running
 * server can notice a change (pl_authorize.c) and re-read them.
 *
 * The directory is read as oslo.policy's policy_dirs: its files in sorted
 * order after the policy file, a later file's rule replacing an earlier
 * one's. Only *.yaml, *.yml and *.json files not starting with "." are
 * read (oslo reads every file not starting with "."; editors' backups and
 * dpkg's .dpkg-old files would then be rules). A directory that does not
 * exist has no rules, as oslo skips it.
 */
#include <stdlib.h>
#include <string.h>

#include <apr_strings.h>
#include <apr_file_io.h>
#include <apr_file_info.h>

#include "pl_policy.h"

static int policy_file_name(const char *name)
{
    const char *dot = strrchr(name, '.');

    if (name[0] == '.' || dot == NULL) {
        return 0;
    }
    return !strcmp(dot, ".yaml") || !strcmp(dot, ".yml") ||
           !strcmp(dot, ".json");
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

apr_status_t pl_policy_dir_files(apr_pool_t *p, const char *dir,
                                 apr_array_header_t **pfiles, const char **perr)
{
    apr_array_header_t *files = apr_array_make(p, 4, sizeof(const char *));
    apr_dir_t *d;
    apr_finfo_t fi;
    apr_status_t rv;
    char buf[120];

    *pfiles = files;
    rv = apr_dir_open(&d, dir, p);
    if (APR_STATUS_IS_ENOENT(rv)) {
        return APR_SUCCESS;
    }
    if (rv != APR_SUCCESS) {
        *perr = apr_psprintf(p, "%s: cannot read the directory: %s", dir,
                             apr_strerror(rv, buf, sizeof(buf)));
        return rv;
    }
    while (apr_dir_read(&fi, APR_FINFO_NAME | APR_FINFO_TYPE, d) ==
           APR_SUCCESS) {
        if (fi.filetype != APR_DIR && policy_file_name(fi.name)) {
            APR_ARRAY_PUSH(files, const char *) = apr_pstrdup(p, fi.name);
        }
    }
    apr_dir_close(d);
    qsort(files->elts, (size_t)files->nelts, sizeof(const char *), by_name);
    for (int i = 0; i < files->nelts; i++) {
        APR_ARRAY_IDX(files, i, const char *) = apr_pstrcat(
            p, dir, "/", APR_ARRAY_IDX(files, i, const char *), NULL);
    }
    return APR_SUCCESS;
}

/* "path inode size mtime;" or "path -;" when it cannot be stat'ed */
static const char *stamp_of(apr_pool_t *p, const char *path)
{
    apr_finfo_t fi;

    if (apr_stat(&fi, path, APR_FINFO_INODE | APR_FINFO_SIZE | APR_FINFO_MTIME,
                 p) != APR_SUCCESS) {
        return apr_pstrcat(p, path, " -;", NULL);
    }
    return apr_psprintf(
        p, "%s %" APR_UINT64_T_FMT " %" APR_OFF_T_FMT " %" APR_TIME_T_FMT ";",
        path, (apr_uint64_t)fi.inode, fi.size, fi.mtime);
}

const char *pl_policy_sources_stamp(apr_pool_t *p, const char *file,
                                    const char *dir)
{
    const char *stamp = file ? stamp_of(p, file) : "";
    apr_array_header_t *files;
    const char *err;

    if (dir == NULL) {
        return stamp;
    }
    stamp = apr_pstrcat(p, stamp, stamp_of(p, dir), NULL);
    if (pl_policy_dir_files(p, dir, &files, &err) != APR_SUCCESS) {
        return apr_pstrcat(p, stamp, "unreadable;", NULL);
    }
    for (int i = 0; i < files->nelts; i++) {
        stamp = apr_pstrcat(
            p, stamp, stamp_of(p, APR_ARRAY_IDX(files, i, const char *)), NULL);
    }
    return stamp;
}

apr_status_t pl_policy_sources_read(apr_pool_t *p, const char *file,
                                    const char *dir, apr_hash_t **pexprs,
                                    const char **perr)
{
    apr_hash_t *all = apr_hash_make(p);
    apr_array_header_t *files = NULL;
    apr_table_t *rules;
    apr_hash_t *exprs;
    apr_status_t rv;

    if (file) {
        rv = pl_policy_file_read(p, file, &rules, &exprs, perr);
        if (rv != APR_SUCCESS) {
            return rv;
        }
        all = exprs;
    }
    if (dir && (rv = pl_policy_dir_files(p, dir, &files, perr))) {
        return rv;
    }
    for (int i = 0; files && i < files->nelts; i++) {
        rv = pl_policy_file_read(p, APR_ARRAY_IDX(files, i, const char *),
                                 &rules, &exprs, perr);
        if (rv != APR_SUCCESS) {
            return rv;
        }
        all = apr_hash_overlay(p, exprs, all);
    }
    *pexprs = all;
    return APR_SUCCESS;
}
