/* Licensed under the Apache License, Version 2.0.
 *
 * pl_jsonschema.h: a small JSON-Schema (draft 2020-12) validator over json-c
 * that answers with the same first error message as python-jsonschema 4.10
 * (the version placement 8.0.0 runs on in Debian 12), so that our 400
 * "JSON does not validate: <message>" details match upstream's.
 *
 * Pure code: APR, json-c and POSIX <regex.h>; no httpd headers.
 *
 * Schemas are JSON text (C string literals in the api_* files), compiled
 * once at start-up. Write them as the Python dicts of placement/schemas/ (*.py)
 * read, KEY ORDER INCLUDED: python-jsonschema checks keywords, properties
 * and "required" names in dict order, and when two errors are equally
 * relevant the first one wins. A dict that upstream builds with deepcopy
 * and then extends has the added keys last.
 *
 * Keywords: type (a name or a list), enum, const, properties,
 * patternProperties, additionalProperties (bool or schema), required,
 * minProperties, maxProperties, items (bool or schema), minItems, maxItems,
 * uniqueItems, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
 * minLength, maxLength (in characters), pattern (Python re.search
 * semantics), format ("uuid" only, with placement's own rule: oslo's
 * is_uuid_like), anyOf, oneOf, allOf, not, $ref ("#", "#/definitions/x",
 * "#/$defs/x" or any JSON pointer inside the schema), definitions, $defs,
 * and boolean schemas. Annotations (title, description, default, examples,
 * $comment) are ignored. Anything else is refused at compile time, so that
 * a schema never silently means less than it says.
 *
 * Patterns are Python regexes translated to POSIX ERE: literals, ".",
 * bracket expressions, \d \w \s (ASCII) and their negations, escaped
 * punctuation, groups, (?:...), alternation, * + ? {m,n} (lazy forms
 * accepted). Look-arounds, back-references, \b, \A, \Z and inline flags
 * are refused at compile time.
 */
#ifndef PL_JSONSCHEMA_H
#define PL_JSONSCHEMA_H

#include <apr_pools.h>
#include <apr_errno.h>
#include <json-c/json.h>

/** A compiled schema. Immutable once compiled: one instance may be used by
 * any number of threads at once. Lives as long as the pool it was
 * compiled in. */
typedef struct pl_jsonschema_t pl_jsonschema_t;

/**
 * Compile a schema given as JSON text. Everything (regexes included) is
 * allocated from p and released by a cleanup of p.
 * @return APR_SUCCESS and *ps; APR_EINVAL if the text is not JSON or uses
 *         a keyword, value or regex this validator does not support.
 */
apr_status_t pl_jsonschema_compile(apr_pool_t *p, const char *schema_json,
                                   pl_jsonschema_t **ps);

/**
 * As pl_jsonschema_compile(), and on APR_EINVAL *perr (if perr is not NULL)
 * says what is wrong and where ("schema/properties/name: unknown keyword
 * 'maxLenght'"), allocated from p.
 */
apr_status_t pl_jsonschema_compile_ex(apr_pool_t *p, const char *schema_json,
                                      pl_jsonschema_t **ps, const char **perr);

/**
 * Validate doc (json-c's NULL is JSON null) against s, as
 * jsonschema.validate(doc, schema, format_checker=FormatChecker()) does
 * in placement.util.extract_json.
 * @return APR_SUCCESS if doc is valid; APR_EINVAL if it is not, with *perr
 *         the message of the error python-jsonschema's best_match() picks
 *         (the first line of str(ValidationError), e.g. "'name' is a
 *         required property" or "1 is not of type 'string'"), values
 *         rendered as Python reprs (a value of the document whose repr is
 *         over 1024 bytes cut: its start, then "... (cut: a list of N
 *         items)"); allocated from p. Scratch memory comes
 *         from p too (a few small records per schema level, independent of
 *         the document size for the common cases).
 */
apr_status_t pl_jsonschema_validate(const pl_jsonschema_t *s, json_object *doc,
                                    apr_pool_t *p, const char **perr);

/**
 * As pl_jsonschema_validate(), with the rest of str(ValidationError) after
 * the message: "\n\nFailed validating 'KEYWORD' in schema['properties']:
 * \n    SCHEMA\n\nOn instance['name']:\n    VALUE", the schema and the
 * value as pprint.pformat(width=72) writes them (every further line
 * indented by four), which is what placement puts in its 400 details.
 */
apr_status_t pl_jsonschema_validate_detail(const pl_jsonschema_t *s,
                                           json_object *doc, apr_pool_t *p,
                                           const char **perr);

/**
 * Python repr() of a JSON value as json.loads() would have built it:
 * 'str' (or "str" when it holds a ' and no "), 1, 1.5, 1e+20, True, False,
 * None, [1, 2], {'a': 1}. Allocated from p. Exposed for the tests and for
 * callers that build other Python-compatible messages.
 */
const char *pl_jsonschema_repr(apr_pool_t *p, json_object *o);

#endif /* PL_JSONSCHEMA_H */
