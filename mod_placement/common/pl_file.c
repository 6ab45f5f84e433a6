/* Licensed under the Apache License, Version 2.0.
 *
 * pl_file.c: a whole configuration file (a policy file, a file of
 * standard traits), read at startup or when it changed; bounded so that a
 * wrong path (a log, a device) cannot take the server's memory.
 */
#include <apr_file_io.h>
#include <apr_strings.h>

#include "pl_file.h"

apr_status_t pl_file_read(apr_pool_t *p, const char *path, apr_size_t max,
                          char **pdata, apr_size_t *plen, const char **perr)
{
    apr_file_t *f;
    apr_finfo_t fi;
    apr_status_t rv;
    char buf[120];

    rv = apr_file_open(&f, path, APR_FOPEN_READ, APR_FPROT_OS_DEFAULT, p);
    if (rv == APR_SUCCESS) {
        rv = apr_file_info_get(&fi, APR_FINFO_SIZE | APR_FINFO_TYPE, f);
        if (rv == APR_SUCCESS && fi.filetype != APR_REG) {
            *perr = apr_psprintf(p, "%s: not a regular file", path);
            apr_file_close(f);
            return APR_EINVAL;
        }
        if (rv == APR_SUCCESS && fi.size > (apr_off_t)max) {
            *perr = apr_psprintf(p, "%s: larger than %" APR_SIZE_T_FMT " bytes",
                                 path, max);
            apr_file_close(f);
            return APR_EINVAL;
        }
        if (rv == APR_SUCCESS) {
            *plen = (apr_size_t)fi.size;
            *pdata = apr_palloc(p, *plen + 1);
            rv = *plen ? apr_file_read_full(f, *pdata, *plen, plen)
                       : APR_SUCCESS;
            (*pdata)[*plen] = '\0';
        }
        apr_file_close(f);
    }
    if (rv != APR_SUCCESS) {
        *perr = apr_psprintf(p, "%s: cannot read: %s", path,
                             apr_strerror(rv, buf, sizeof(buf)));
    }
    return rv;
}
