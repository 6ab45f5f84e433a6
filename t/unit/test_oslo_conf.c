/* Licensed under the Apache License, Version 2.0.
 *
 * test_oslo_conf.c: the tool's placement.conf reader
 * (tools/manage/pm_oslo_conf.c) against oslo.config's rules: what a
 * file means (sections, both separators, continuations, comments,
 * quotes, repeated keys), the errors with their line, the order of
 * --config-file and --config-dir files and the default search, and $NAME
 * expansion.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <apr_general.h>
#include <apr_strings.h>

#include "pm.h"
#include "tap.h"

/* section/key's last value in text, or "ERR:" + the message */
static const char *value_of(apr_pool_t *p, const char *text,
                            const char *section, const char *key)
{
    pm_conf_t *conf = pm_conf_make(p);
    const char *err = pm_conf_read_text(p, conf, "t.conf", text);
    const pm_conf_item_t *it;

    if (err != NULL) {
        return apr_pstrcat(p, "ERR:", err, NULL);
    }
    it = pm_conf_get(conf, section, key);
    return it != NULL ? it->value : NULL;
}

typedef struct {
    const char *name;
    const char *text;
    const char *section, *key;
    const char *want; /* NULL: not set; "ERR:..." an error */
} case_t;

static const case_t cases[] = {
    { "key = value", "[a]\nk = v\n", "a", "k", "v" },
    { "key: value", "[a]\nk: v\n", "a", "k", "v" },
    { "no spaces", "[a]\nk=v\n", "a", "k", "v" },
    { "the first of = and : splits (=)", "[a]\nurl = http://h:1/x\n", "a",
      "url", "http://h:1/x" },
    { "the first of = and : splits (:)", "[a]\nk: a=b\n", "a", "k", "a=b" },
    { "value stripped", "[a]\nk =   v w  \t\n", "a", "k", "v w" },
    { "empty value", "[a]\nk =\n", "a", "k", "" },
    { "double quotes dropped", "[a]\nk = \"v w\"\n", "a", "k", "v w" },
    { "single quotes dropped", "[a]\nk = 'v'\n", "a", "k", "v" },
    { "mismatched quotes kept", "[a]\nk = \"v'\n", "a", "k", "\"v'" },
    { "inner quotes kept", "[a]\nk = a \"b\" c\n", "a", "k", "a \"b\" c" },
    { "a '#' after a value is part of it", "[a]\nk = v # not a comment\n", "a",
      "k", "v # not a comment" },
    { "comment lines", "# c\n; c\n[a]\n# k = no\n;k = no\nk = v\n", "a", "k",
      "v" },
    { "the last of a repeated key counts", "[a]\nk = 1\nk = 2\n", "a", "k",
      "2" },
    { "a section opened twice", "[a]\nk = 1\n[b]\nk = x\n[a]\nk = 3\n", "a",
      "k", "3" },
    { "continuation lines joined with newlines",
      "[a]\nk = one\n  two\n\tthree\n", "a", "k", "one\ntwo\nthree" },
    { "a blank line ends a value", "[a]\nk = one\n\nj = two\n", "a", "k",
      "one" },
    { "continuation of an empty value", "[a]\nk =\n    v\n", "a", "k", "\nv" },
    { "an indented comment continues a value (oslo)", "[a]\nk = v\n  # c\n",
      "a", "k", "v\n# c" },
    { "CRLF line ends", "[a]\r\nk = v\r\n", "a", "k", "v" },
    { "no newline at the end", "[a]\nk = v", "a", "k", "v" },
    { "DEFAULT", "[DEFAULT]\nk = v\n", "DEFAULT", "k", "v" },
    { "section names lowercased", "[Placement_Database]\nk = v\n",
      "placement_database", "k", "v" },
    { "[default] is not DEFAULT", "[default]\nk = v\n", "DEFAULT", "k", NULL },
    { "keys keep their case", "[a]\nK = v\n", "a", "k", NULL },
    { "other sections do not leak", "[a]\nk = v\n[b]\n", "b", "k", NULL },
    { "whitespace-only line is blank", "[a]\nk = v\n   \n", "a", "k", "v" },

    /* errors: file and line */
    { "no separator", "[a]\n\nnot an option\n", "a", "k",
      "ERR:t.conf:3: no ':' or '=' found in assignment" },
    { "section without ]", "[a\nk = v\n", "a", "k",
      "ERR:t.conf:1: invalid section (must end with ])" },
    { "text after ]", "[a] # c\n", "a", "k",
      "ERR:t.conf:1: invalid section (must end with ])" },
    { "empty section name", "[]\n", "a", "k",
      "ERR:t.conf:1: empty section name" },
    { "empty key", "[a]\n= v\n", "a", "k",
      "ERR:t.conf:2: key cannot be empty" },
    { "key before any section", "# c\nk = v\n", "a", "k",
      "ERR:t.conf:2: section must be started before assignment" },
    { "continuation with no value open", "[a]\n  v\n", "a", "k",
      "ERR:t.conf:2: unexpected continuation line" },
    { "continuation after a blank line", "[a]\nk = v\n\n  w\n", "a", "k",
      "ERR:t.conf:4: unexpected continuation line" },
    { NULL }
};

static void test_cases(apr_pool_t *p)
{
    const case_t *c;

    for (c = cases; c->name != NULL; c++) {
        TAP_IS_STR(value_of(p, c->text, c->section, c->key), c->want, "%s",
                   c->name);
    }
}

static void test_where(apr_pool_t *p)
{
    pm_conf_t *conf = pm_conf_make(p);
    const pm_conf_item_t *it;
    apr_array_header_t *all;

    TAP_OK(pm_conf_read_text(p, conf, "one.conf", "[a]\nk = 1\n\nk = 2\n") ==
               NULL,
           "first file read");
    TAP_OK(pm_conf_read_text(p, conf, "two.conf", "# x\n[a]\nk = 3\n") == NULL,
           "second file read");
    it = pm_conf_get(conf, "a", "k");
    TAP_IS_STR(it ? it->value : NULL, "3", "a later file overrides");
    TAP_IS_STR(it ? it->file : NULL, "two.conf", "the value knows its file");
    TAP_IS_INT(it ? it->line : 0, 3, "and its line");
    all = pm_conf_get_all(p, conf, "a", "k");
    TAP_IS_INT(all->nelts, 3, "every value kept in order (list options)");
    TAP_IS_STR(pm_conf_files_shown(p, conf), "one.conf, two.conf",
               "the files read, in order");
}

static const char *expand(apr_pool_t *p, const char *text, const char *sec,
                          const char *key)
{
    pm_conf_t *conf = pm_conf_make(p);
    const char *err = NULL, *v;

    if (pm_conf_read_text(p, conf, "s.conf", text) != NULL) {
        return "PARSE ERROR";
    }
    v = pm_conf_value(p, conf, pm_conf_get(conf, sec, key), &err);
    return v != NULL ? v : apr_pstrcat(p, "ERR:", err, NULL);
}

static void test_substitution(apr_pool_t *p)
{
    TAP_IS_STR(expand(p, "[a]\nk = pa$$word\n", "a", "k"), "pa$word",
               "$$ is a dollar sign");
    TAP_IS_STR(expand(p, "[DEFAULT]\nhost = db1\n[a]\nk = mysql://$host/x\n",
                      "a", "k"),
               "mysql://db1/x", "$name from [DEFAULT]");
    TAP_IS_STR(expand(p, "[DEFAULT]\nh = db1\n[a]\nk = ${h}2\n", "a", "k"),
               "db12", "${name}");
    TAP_IS_STR(expand(p, "[b]\nh = db1\n[a]\nk = $b.h\n", "a", "k"), "db1",
               "$group.name");
    TAP_IS_STR(expand(p, "[DEFAULT]\nx = $y\ny = z\n[a]\nk = $x\n", "a", "k"),
               "z", "names expand in turn");
    TAP_IS_STR(expand(p, "[a]\nk = pa$word\n", "a", "k"),
               "ERR:s.conf:2: [a] k: $word names no option set in the "
               "configuration (oslo.config expands $NAME; write $$ for a "
               "dollar sign)",
               "an unset name is an error with file and line");
    TAP_OK(strncmp(expand(p, "[DEFAULT]\nx = $x\n[a]\nk = $x\n", "a", "k"),
                   "ERR:", 4) == 0,
           "a name that refers to itself is an error, not a loop");
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f == NULL) {
        perror(path);
        abort();
    }
    fputs(text, f);
    fclose(f);
}

/* pm_conf_load: the files oslo.config reads, in its order */
static void test_load(apr_pool_t *p)
{
    char tmpl[] = "/tmp/pl-test-oslo-conf.XXXXXX";
    char *dir = mkdtemp(tmpl);
    apr_array_header_t *src = apr_array_make(p, 2, sizeof(pm_conf_source_t));
    const char *home, *d, *err;
    pm_conf_t *conf;
    pm_conf_source_t *s;

    if (dir == NULL) {
        TAP_OK(0, "mkdtemp");
        return;
    }
    home = apr_pstrcat(p, dir, "/home", NULL);
    d = apr_pstrcat(p, dir, "/conf.d", NULL);
    mkdir(home, 0755);
    mkdir(apr_pstrcat(p, home, "/.placement", NULL), 0755);
    mkdir(apr_pstrcat(p, home, "/.placement/placement.conf.d", NULL), 0755);
    mkdir(d, 0755);
    put(apr_pstrcat(p, dir, "/main.conf", NULL), "[a]\nk = main\nm = main\n");
    put(apr_pstrcat(p, d, "/20.conf", NULL), "[a]\nk = 20\n");
    put(apr_pstrcat(p, d, "/10.conf", NULL), "[a]\nk = 10\nj = 10\n");
    put(apr_pstrcat(p, d, "/.30.conf", NULL), "[a]\nk = hidden\n");
    put(apr_pstrcat(p, d, "/40.conf.bak", NULL), "[a]\nk = backup\n");
    put(apr_pstrcat(p, home, "/.placement/placement.conf", NULL),
        "[a]\nk = home\nh = home\n");
    put(apr_pstrcat(p, home, "/.placement/placement.conf.d/x.conf", NULL),
        "[a]\nk = home.d\n");
    put(apr_pstrcat(p, home, "/placement.conf", NULL), "[a]\nk = ~\n");
    setenv("HOME", home, 1);

    /* no options: ~/.placement/ is searched before ~/ and /etc */
    err = pm_conf_load(p, src, &conf);
    TAP_IS_STR(err, NULL, "defaults: read");
    TAP_IS_STR(pm_conf_get(conf, "a", "k")->value, "home.d",
               "defaults: placement.conf.d after placement.conf");
    TAP_IS_STR(pm_conf_get(conf, "a", "h")->value, "home",
               "defaults: ~/.placement/placement.conf first found");

    /* --config-file: no default file, the default dir still read */
    s = apr_array_push(src);
    s->path = apr_pstrcat(p, dir, "/main.conf", NULL);
    s->is_dir = 0;
    err = pm_conf_load(p, src, &conf);
    TAP_IS_STR(err, NULL, "--config-file: read");
    TAP_OK(pm_conf_get(conf, "a", "h") == NULL,
           "--config-file: the default file not read");
    TAP_IS_STR(pm_conf_get(conf, "a", "m")->value, "main",
               "--config-file: its values");
    TAP_IS_STR(pm_conf_get(conf, "a", "k")->value, "main",
               "--config-file: read after the default directory");

    /* and --config-dir: *.conf in name order after the file */
    s = apr_array_push(src);
    s->path = d;
    s->is_dir = 1;
    err = pm_conf_load(p, src, &conf);
    TAP_IS_STR(err, NULL, "--config-dir: read");
    TAP_IS_STR(pm_conf_get(conf, "a", "k")->value, "20",
               "--config-dir: name order, after --config-file");
    TAP_IS_STR(pm_conf_get(conf, "a", "j")->value, "10",
               "--config-dir: every file");
    TAP_IS_INT(conf->files->nelts, 3,
               "--config-dir: hidden and other files not read");

    /* errors */
    s = apr_array_push(src);
    s->path = apr_pstrcat(p, dir, "/missing.conf", NULL);
    s->is_dir = 0;
    err = pm_conf_load(p, src, &conf);
    TAP_IS_STR(err,
               apr_pstrcat(p, dir,
                           "/missing.conf: cannot read: No such file or "
                           "directory",
                           NULL),
               "a missing --config-file is an error");
    apr_array_pop(src);
    s = apr_array_push(src);
    s->path = apr_pstrcat(p, dir, "/missing.d", NULL);
    s->is_dir = 1;
    err = pm_conf_load(p, src, &conf);
    TAP_OK(err != NULL && strstr(err, "missing.d: cannot read the directory") ==
                              err + strlen(dir) + 1,
           "a missing --config-dir is an error: %s", err ? err : "none");
    put(apr_pstrcat(p, d, "/50.conf", NULL), "[a]\nk = 1\nbroken\n");
    apr_array_pop(src);
    err = pm_conf_load(p, src, &conf);
    TAP_IS_STR(err,
               apr_pstrcat(p, d,
                           "/50.conf:3: no ':' or '=' found in "
                           "assignment",
                           NULL),
               "a bad line of a directory's file names that file");

    /* no HOME file: nothing found is no error (the caller decides) */
    setenv("HOME", dir, 1);
    apr_array_clear(src);
    err = pm_conf_load(p, src, &conf);
    TAP_OK(err == NULL || strstr(err, "/etc/") == err,
           "defaults: nothing in HOME is fine");

    {
        char *cmd = apr_pstrcat(p, "rm -rf '", dir, "'", NULL);
        TAP_IS_INT(system(cmd), 0, "scratch directory removed");
    }
}

int main(void)
{
    apr_pool_t *p;

    apr_initialize();
    apr_pool_create(&p, NULL);
    apr_pool_tag(p, "test_oslo_conf");

    test_cases(p);
    test_where(p);
    test_substitution(p);
    test_load(p);

    apr_pool_destroy(p);
    apr_terminate();
    return tap_done();
}
