/* Licensed under the Apache License, Version 2.0.
 *
 * pm_check.c: `upgrade check`, the checks of upstream's `placement-status
 * upgrade check`, printed as its table (or --json) with its exit codes:
 * 0 all succeeded, 1 a warning, 2 a failure, 255 the checks could not run.
 */
#include <stdio.h>
#include <string.h>
#include <apr_strings.h>
#include "pm.h"

enum { CODE_SUCCESS = 0, CODE_WARNING = 1, CODE_FAILURE = 2 };

typedef struct result_t {
    const char *name;
    int code;
    const char *details; /* NULL: None */
} result_t;

/* Whether the file holds JSON, as oslo's fileutils.is_json decides: it
 * parses as JSON. Policy files are YAML or JSON; only JSON opens with
 * '{' (a YAML flow mapping would too, and is rare enough to count). */
static int is_json_file(const char *path)
{
    FILE *f = fopen(path, "r");
    int ch;

    if (f == NULL) {
        return 0;
    }
    while ((ch = fgetc(f)) == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
    }
    fclose(f);
    return ch == '{';
}

static void print_wrapped(const char *label, const char *text, int width)
{
    /* textwrap.wrap(text, 60, subsequent_indent='  ') after the label */
    const char *s = text;
    char line[256];
    int first = 1;

    while (*s) {
        int max = first ? 60 : 58, len = 0, last_space = -1;
        const char *start = s;
        while (len < max && s[len]) {
            if (s[len] == ' ') {
                last_space = len;
            }
            len++;
        }
        if (s[len] && last_space > 0) {
            len = last_space;
        }
        snprintf(line, sizeof(line), "%s%s%.*s", first ? label : "",
                 first ? "" : "  ", len, start);
        printf("| %-*s |\n", width, line);
        s = start + len;
        while (*s == ' ') {
            s++;
        }
        first = 0;
    }
}

int pm_upgrade_check(pm_conn_t *c, int json)
{
    result_t results[3];
    long n;
    int i, worst = CODE_SUCCESS, width = 0;

    /* Missing Root Provider IDs: a failure until the online migrations */
    n = pm_count(c, "SELECT count(*) FROM resource_providers "
                    "WHERE root_provider_id IS NULL");
    if (n < 0) {
        printf("Error:\n%s\n", pl_db_errstr(c->db));
        return PM_EXIT_CHECK_ERROR;
    }
    results[0].name = "Missing Root Provider IDs";
    results[0].code = n ? CODE_FAILURE : CODE_SUCCESS;
    results[0].details =
        n ? "There is at least one resource provider table record which "
            "misses its root provider id. Run the \"placement-manage db "
            "online_data_migrations\" command."
          : NULL;

    /* Incomplete Consumers: a warning with the count */
    n = pm_count(c, "SELECT count(DISTINCT allocations.consumer_id) "
                    "FROM allocations LEFT OUTER JOIN consumers "
                    "ON allocations.consumer_id = consumers.uuid "
                    "WHERE consumers.id IS NULL");
    if (n < 0) {
        printf("Error:\n%s\n", pl_db_errstr(c->db));
        return PM_EXIT_CHECK_ERROR;
    }
    results[1].name = "Incomplete Consumers";
    results[1].code = n ? CODE_WARNING : CODE_SUCCESS;
    results[1].details =
        n ? apr_psprintf(c->pool,
                         "There are %ld incomplete consumers table records "
                         "for existing allocations. Run the "
                         "\"placement-manage db online_data_migrations\" "
                         "command.",
                         n)
          : NULL;

    /* Policy File JSON to YAML Migration: a JSON policy file fails */
    results[2].name = "Policy File JSON to YAML Migration";
    results[2].code = CODE_SUCCESS;
    results[2].details = NULL;
    if (c->src->policy_file != NULL && is_json_file(c->src->policy_file)) {
        results[2].code = CODE_FAILURE;
        results[2].details =
            "Your policy file is JSON-formatted which is deprecated. You "
            "need to switch to YAML-formatted file. Use the "
            "``oslopolicy-convert-json-to-yaml`` tool to convert the "
            "existing JSON-formatted files to YAML in a backwards-"
            "compatible manner: https://docs.openstack.org/oslo.policy/"
            "latest/cli/oslopolicy-convert-json-to-yaml.html.";
    }

    for (i = 0; i < 3; i++) {
        if (results[i].code > worst) {
            worst = results[i].code;
        }
    }
    if (json) {
        printf("{\"name\": \"Upgrade Check Results\", \"checks\": [");
        for (i = 0; i < 3; i++) {
            printf("%s{\"check\": \"%s\", \"result\": %d, \"details\": ",
                   i ? ", " : "", results[i].name, results[i].code);
            if (results[i].details == NULL) {
                printf("null}");
            }
            else {
                const char *s;
                putchar('"');
                for (s = results[i].details; *s; s++) {
                    if (*s == '"' || *s == '\\') {
                        putchar('\\');
                    }
                    putchar(*s);
                }
                printf("\"}");
            }
        }
        printf("]}\n");
        return worst;
    }
    /* the table: as wide as its longest line */
    width = (int)strlen("Check: Policy File JSON to YAML Migration");
    for (i = 0; i < 3; i++) {
        if (results[i].details != NULL && width < 9 + 60) {
            width = 9 + 60;
        }
    }
    printf("+%.*s+\n", width + 2,
           "------------------------------------------------------------"
           "------------------------------------------------------------");
    printf("| %-*s |\n", width, "Upgrade Check Results");
    for (i = 0; i < 3; i++) {
        static const char *const words[] = { "Success", "Warning", "Failure" };
        char line[128];
        printf("+%.*s+\n", width + 2,
               "------------------------------------------------------------"
               "------------------------------------------------------------");
        snprintf(line, sizeof(line), "Check: %s", results[i].name);
        printf("| %-*s |\n", width, line);
        snprintf(line, sizeof(line), "Result: %s", words[results[i].code]);
        printf("| %-*s |\n", width, line);
        if (results[i].details == NULL) {
            printf("| %-*s |\n", width, "Details: None");
        }
        else {
            print_wrapped("Details: ", results[i].details, width);
        }
    }
    printf("+%.*s+\n", width + 2,
           "------------------------------------------------------------"
           "------------------------------------------------------------");
    return worst;
}
