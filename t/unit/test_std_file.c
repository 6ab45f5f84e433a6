/* Licensed under the Apache License, Version 2.0.
 *
 * test_std_file.c: pl_std_traits_file_read(), the file of
 * PlacementStandardTraitsFile: what it takes (names, blank lines,
 * comments, spaces around a name, the last line without a newline) and
 * what it refuses, each refusal naming the file and the line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <apr_general.h>
#include <apr_strings.h>

#include "pl_store_std.h"
#include "tap.h"

static const char *write_file(apr_pool_t *p, const char *text, size_t len)
{
    char *path = apr_pstrdup(p, "/tmp/pl-std-file.XXXXXX");
    int fd = mkstemp(path);

    if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
        return NULL;
    }
    close(fd);
    return path;
}

/* The file's names joined by ',', or "error: " and the error text. */
static const char *read_back(apr_pool_t *p, const char *text, size_t len)
{
    const char *path = write_file(p, text, len), *err = NULL, *out = "";
    apr_array_header_t *names;
    int i;

    if (path == NULL) {
        return "cannot write the file";
    }
    if (pl_std_traits_file_read(p, path, &names, &err) != APR_SUCCESS) {
        unlink(path);
        /* the path is random: keep what follows it */
        return apr_pstrcat(p, "error: ", err + strlen(path), NULL);
    }
    unlink(path);
    for (i = 0; i < names->nelts; i++) {
        out = apr_pstrcat(p, out, i ? "," : "",
                          APR_ARRAY_IDX(names, i, const char *), NULL);
    }
    return out;
}

#define READ(text) read_back(p, text, sizeof(text) - 1)

int main(int argc, const char *const *argv)
{
    apr_pool_t *p;
    char *long_name, *huge;
    const char *err = NULL;
    apr_array_header_t *names;

    apr_app_initialize(&argc, &argv, NULL);
    apr_pool_create(&p, NULL);

    TAP_IS_STR(READ("HW_A\nCOMPUTE_B_2\n"), "HW_A,COMPUTE_B_2", "names");
    TAP_IS_STR(READ("# a comment\n\n  HW_A  \n\t# indented comment\r\n"
                    "HW_B\r\nHW_C"),
               "HW_A,HW_B,HW_C",
               "comments, blank lines, spaces and CR around names, no "
               "final newline");
    TAP_IS_STR(READ(""), "", "an empty file is no names");
    TAP_IS_STR(READ("HW_A\nHW_A\n"), "HW_A,HW_A", "a repeated name is fine");

    TAP_IS_STR(READ("HW_A\nhw_b\n"),
               "error: :2: 'hw_b' is not a standard trait name: not "
               "starting with a letter A-Z",
               "lower case, with its line");
    TAP_IS_STR(READ("HW_A\n\n# x\nHW-B\n"),
               "error: :4: 'HW-B' is not a standard trait name: not only "
               "A-Z, 0-9 and _",
               "a dash, counting blank and comment lines");
    TAP_IS_STR(READ("1HW\n"),
               "error: :1: '1HW' is not a standard trait name: not "
               "starting with a letter A-Z",
               "a digit first");
    TAP_IS_STR(READ("_HW\n"),
               "error: :1: '_HW' is not a standard trait name: not "
               "starting with a letter A-Z",
               "an underscore first");
    TAP_IS_STR(READ("HW A\n"),
               "error: :1: 'HW A' is not a standard trait name: not only "
               "A-Z, 0-9 and _",
               "a space inside");
    TAP_IS_STR(READ("CUSTOM_MINE\n"),
               "error: :1: 'CUSTOM_MINE' is not a standard trait name: a "
               "custom trait (CUSTOM_), which users create with PUT /traits",
               "a custom trait");
    TAP_IS_STR(read_back(p, "HW_A\n\0HW_B\n", 11), "error: : holds a NUL byte",
               "a NUL byte");

    long_name = apr_palloc(p, 258);
    memset(long_name, 'A', 256);
    long_name[256] = '\n';
    long_name[257] = '\0';
    TAP_OK(!strncmp(read_back(p, long_name, 257), "error: :1: 'AAAA", 16) &&
               strstr(read_back(p, long_name, 257),
                      "...' is not a standard trait name: longer than 255 "
                      "characters"),
           "256 characters are refused, the name cut in the message");
    TAP_IS_INT(strlen(read_back(p, long_name + 1, 256)), 255,
               "255 characters are taken");

    huge = apr_palloc(p, PL_STD_FILE_MAX + 1);
    memset(huge, '\n', PL_STD_FILE_MAX + 1);
    TAP_OK(strstr(read_back(p, huge, PL_STD_FILE_MAX + 1),
                  ": larger than 1048576 bytes") != NULL,
           "a file larger than PL_STD_FILE_MAX is refused");
    TAP_IS_STR(read_back(p, huge, PL_STD_FILE_MAX), "",
               "a file of PL_STD_FILE_MAX bytes is read");

    TAP_OK(pl_std_traits_file_read(p, "/nonexistent/traits.txt", &names,
                                   &err) != APR_SUCCESS &&
               !strcmp(err, "/nonexistent/traits.txt: cannot read: No such "
                            "file or directory"),
           "a missing file: %s", err);
    err = NULL;
    TAP_OK(pl_std_traits_file_read(p, "/tmp", &names, &err) != APR_SUCCESS &&
               !strcmp(err, "/tmp: not a regular file"),
           "a directory: %s", err);

    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
