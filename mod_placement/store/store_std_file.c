/* Licensed under the Apache License, Version 2.0.
 *
 * store_std_file.c: a file of standard trait names newer than the build
 * (PlacementStandardTraitsFile, mod-placement-manage --traits-file), so an
 * operator whose nova reports traits of a later os-traits adds them
 * without a rebuild. The names are checked as os-traits' own tests check
 * its names; a bad line refuses the whole file, naming it and the line.
 */
#include <string.h>
#include <apr_lib.h>
#include <apr_strings.h>

#include "pl_file.h"
#include "pl_store_std.h"
#include "pl_store_trait.h"

/* Why name cannot be a standard trait, or NULL when it can. */
static const char *name_fault(const char *name, apr_size_t len)
{
    apr_size_t i;

    if (len > PL_TRAIT_NAME_MAX) {
        return "longer than 255 characters";
    }
    if (strncmp(name, PL_TRAIT_CUSTOM_PREFIX,
                sizeof(PL_TRAIT_CUSTOM_PREFIX) - 1) == 0) {
        return "a custom trait (CUSTOM_), which users create with PUT "
               "/traits";
    }
    if (!apr_isupper(name[0])) {
        return "not starting with a letter A-Z";
    }
    for (i = 1; i < len; i++) {
        if (!apr_isupper(name[i]) && !apr_isdigit(name[i]) && name[i] != '_') {
            return "not only A-Z, 0-9 and _";
        }
    }
    return NULL;
}

apr_status_t pl_std_traits_file_read(apr_pool_t *p, const char *path,
                                     apr_array_header_t **pnames,
                                     const char **perr)
{
    apr_array_header_t *names = apr_array_make(p, 16, sizeof(const char *));
    apr_size_t len;
    apr_status_t rv;
    char *data, *line, *next;
    int lineno = 0;

    rv = pl_file_read(p, path, PL_STD_FILE_MAX, &data, &len, perr);
    if (rv != APR_SUCCESS) {
        return rv;
    }
    if (strlen(data) != len) {
        *perr = apr_psprintf(p, "%s: holds a NUL byte", path);
        return APR_EINVAL;
    }
    for (line = data; line && *line; line = next) {
        const char *fault;
        char *end;

        lineno++;
        next = strchr(line, '\n');
        if (next) {
            *next++ = '\0';
        }
        while (apr_isspace(*line)) {
            line++;
        }
        end = line + strlen(line);
        while (end > line && apr_isspace(end[-1])) {
            *--end = '\0';
        }
        if (*line == '\0' || *line == '#') {
            continue;
        }
        fault = name_fault(line, (apr_size_t)(end - line));
        if (fault) {
            *perr = apr_psprintf(p,
                                 "%s:%d: '%.80s%s' is not a standard "
                                 "trait name: %s",
                                 path, lineno, line,
                                 end - line > 80 ? "..." : "", fault);
            return APR_EINVAL;
        }
        APR_ARRAY_PUSH(names, const char *) = line;
    }
    *pnames = names;
    return APR_SUCCESS;
}
