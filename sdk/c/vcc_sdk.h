/*
 * vcc_sdk.h: write a vcc validator in C (or in Zig: `vcc validator build`
 * translates this header into the module `vcc_sdk`).
 *
 * A validator defines two functions, and optionally a third:
 *
 *     #include "vcc_sdk.h"
 *
 *     void vcc_describe(vcc_description *d) {
 *         d->name = "non-empty";
 *         d->version = "0.1.0";
 *         d->summary = "every target file has bytes";
 *         d->params_schema = "{\"type\":\"object\",\"additionalProperties\":false}";
 *     }
 *
 *     vcc_outcome *vcc_validate(const vcc_criterion *c) {
 *         for (size_t t = 0; t < c->target_count; t++)
 *             for (size_t i = 0; i < c->targets[t].path_count; i++) {
 *                 vcc_file_info info;
 *                 char *error;
 *                 if (!vcc_stat(c->targets[t].paths[i], &info, &error))
 *                     return vcc_error("%s", error);
 *                 if (info.size == 0)
 *                     return vcc_fail("%s is empty", vcc_relative(info.path));
 *             }
 *         return vcc_pass("all target files have bytes");
 *     }
 *
 *     // Optional: what the params schema cannot say (see below).
 *     void vcc_check_params(const char *params, vcc_findings *out);
 *
 * and is compiled together with vcc_sdk.c for wasm32-wasi as a reactor,
 * then made a component by `vcc validator componentize` (`vcc validator
 * build` does all of it for a project with `lang: c`).
 *
 * Memory: everything the SDK hands you, and everything you hand it, is
 * copied onto the heap by the SDK; pass string literals, stack buffers or
 * your own allocations alike. Nothing is freed before the call returns,
 * and vcc runs every criterion in a fresh instance, so a validator never
 * frees what the SDK gave it. Allocation failure traps (an error, never a
 * pass).
 *
 * Strings are UTF-8 and NUL-terminated. File contents are bytes
 * (vcc_bytes); vcc_read_text refuses a file that is not UTF-8 or holds a
 * NUL byte.
 *
 * Speaks vcc:validator@0.1.4 (`vcc validator wit` writes the WIT).
 */
#ifndef VCC_SDK_H
#define VCC_SDK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VCC_WIT_VERSION "0.1.4"
/* Where the host mounts the deliverable root (read-only) for WASI file APIs. */
#define VCC_MOUNT "/deliverables"
/* How an error blames the params rather than the deliverables. */
#define VCC_INVALID_PARAMS "invalid params:"

#if defined(__GNUC__) || defined(__clang__)
#define VCC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define VCC_PRINTF(f, a)
#endif

/* ---- What the validator receives and returns ------------------------ */

typedef enum { VCC_PASS = 0, VCC_FAIL = 1, VCC_SKIP = 2 } vcc_status;

/* One target deliverable: its id and the guest paths of its files, sorted. */
typedef struct {
    const char *id;
    const char *const *paths;
    size_t path_count;
} vcc_target;

/* What the validator is asked to judge. */
typedef struct {
    const char *id;
    /* The criterion's params as JSON text ("{}" when absent); read it with
       vcc_param_str/int/bool/list. The host checked it against the params
       schema before this call. */
    const char *params;
    const vcc_target *targets;
    size_t target_count;
} vcc_criterion;

/* Fill in with any strings; the SDK copies them. */
typedef struct {
    const char *name;
    const char *version;       /* semver */
    const char *summary;       /* one line: what it checks */
    const char *params_schema; /* a JSON Schema, as JSON text */
} vcc_description;

typedef struct {
    char *message;
    char *path;      /* NULL: none */
    uint32_t line;   /* 1-based; 0: none */
    uint32_t column; /* 1-based; 0: none */
    char *rule;      /* NULL: none */
} vcc_finding;

typedef struct {
    vcc_finding *items;
    size_t count, cap;
} vcc_findings;

typedef struct {
    char *name;
    char *media_type;
    uint8_t *bytes;
    size_t len;
} vcc_evidence;

typedef struct {
    vcc_status status;
    char *summary;
    vcc_findings findings;
    vcc_evidence *evidence;
    size_t evidence_count, evidence_cap;
    /* Set by vcc_error/vcc_invalid_params: the validator could not judge. */
    char *error;
} vcc_outcome;

/* ---- The functions a validator defines ------------------------------ */

void vcc_describe(vcc_description *out);
vcc_outcome *vcc_validate(const vcc_criterion *criterion);
/* Optional (the SDK's default accepts everything): add a finding for each
   problem the schema cannot catch, with a JSON pointer into the params as
   its path ("/rules/0/matches"). `vcc lint` reports each as INVALID_PARAMS. */
void vcc_check_params(const char *params, vcc_findings *out);

/* ---- Outcomes -------------------------------------------------------- */

/* printf-style summaries. */
vcc_outcome *vcc_pass(const char *fmt, ...) VCC_PRINTF(1, 2);
vcc_outcome *vcc_fail(const char *fmt, ...) VCC_PRINTF(1, 2);
vcc_outcome *vcc_skip(const char *fmt, ...) VCC_PRINTF(1, 2);
/* The validator itself could not work: the host records status error,
   never a pass. */
vcc_outcome *vcc_error(const char *fmt, ...) VCC_PRINTF(1, 2);
/* The params are wrong, not the deliverables: status error with reason
   invalid_params. */
vcc_outcome *vcc_invalid_params(const char *fmt, ...) VCC_PRINTF(1, 2);

void vcc_set_status(vcc_outcome *o, vcc_status status);
void vcc_set_summary(vcc_outcome *o, const char *fmt, ...) VCC_PRINTF(2, 3);
/* path, rule: NULL for none; line, column: 0 for none. A path may be a
   guest path or relative to the root. */
void vcc_add_finding(vcc_outcome *o, const char *message, const char *path, uint32_t line,
                     uint32_t column, const char *rule);
void vcc_add_evidence(vcc_outcome *o, const char *name, const char *media_type,
                      const void *bytes, size_t len);
void vcc_findings_add(vcc_findings *f, const char *message, const char *path, uint32_t line,
                      uint32_t column, const char *rule);

/* ---- Strings --------------------------------------------------------- */

/* A heap copy, printf-style. */
char *vcc_format(const char *fmt, ...) VCC_PRINTF(1, 2);
/* Lines split at '\n', in place (each NUL-terminated; a final '\n' gives
   a last empty line, as split("\n") does): start with rest = the text,
   loop while the result is not NULL. Linear in the text. */
char *vcc_next_line(char **rest);
/* A guest path made relative to the deliverable root (points into path). */
const char *vcc_relative(const char *path);

/* A growing string: start from {0}. */
typedef struct {
    char *data; /* NUL-terminated once anything was added */
    size_t len, cap;
} vcc_buf;
void vcc_buf_add(vcc_buf *b, const char *s);
void vcc_buf_addf(vcc_buf *b, const char *fmt, ...) VCC_PRINTF(2, 3);
/* s as a JSON string literal, quoted and escaped. */
void vcc_buf_add_json(vcc_buf *b, const char *s);
/* The text so far ("" when empty). */
const char *vcc_buf_str(const vcc_buf *b);

/* ---- Params and other JSON text --------------------------------------- */

/* A top-level member of a JSON object: `fallback` when absent or of
   another type. Strings are decoded (escapes, \u pairs) into UTF-8. */
const char *vcc_param_str(const vcc_criterion *c, const char *name, const char *fallback);
long long vcc_param_int(const vcc_criterion *c, const char *name, long long fallback);
bool vcc_param_bool(const vcc_criterion *c, const char *name, bool fallback);
/* An array of strings: how many, and *out set to them (NULL-terminated).
   0 when absent or not an array of strings. */
size_t vcc_param_list(const vcc_criterion *c, const char *name, char ***out);
bool vcc_param_has(const vcc_criterion *c, const char *name);

/* The same over any JSON object text the host checked (check_params'
   params, a judge's answer). The reader is strict: text that is not one
   well-formed JSON object has no members, so every call gives its
   fallback; a string holding \u0000, or an integer past 64 bits, gives the
   fallback too. To judge a deliverable's JSON, use std/json-schema, not
   these. */
char *vcc_json_str(const char *json, const char *name, const char *fallback);
long long vcc_json_int(const char *json, const char *name, long long fallback);
bool vcc_json_bool(const char *json, const char *name, bool fallback);
size_t vcc_json_list(const char *json, const char *name, char ***out);
bool vcc_json_has(const char *json, const char *name);

/* ---- The snapshot, through the host ----------------------------------- */
/* Each returns false and sets *error (when error is not NULL) on failure.
   A path the check leaves out gives an error starting with "excluded:". */

typedef struct {
    const uint8_t *data;
    size_t len;
} vcc_bytes;

typedef struct {
    char *path; /* guest path */
    uint64_t size;
    char *digest; /* blake3:<hex> */
} vcc_file_info;

/* The bytes of a file the host hashed (recorded in the report's files_read). */
bool vcc_read(const char *path, vcc_bytes *out, char **error);
/* The same as NUL-terminated UTF-8 text; NULL (and *error) when the file
   is not UTF-8 or holds a NUL byte: read those with vcc_read. */
char *vcc_read_text(const char *path, char **error);
/* Size and digest without reading the file. */
bool vcc_stat(const char *path, vcc_file_info *out, char **error);
/* The files of any deliverable of the contract, by id. */
bool vcc_list_files(const char *deliverable, vcc_file_info **out, size_t *count, char **error);
/* The ids of every deliverable of the contract, in contract order. */
size_t vcc_deliverable_ids(char ***out);

typedef struct {
    char *code; /* unsigned, unknown-key, bad-signature, other-bytes, ... */
    char *message;
} vcc_signature_problem;

typedef struct {
    char **signers; /* trusted key ids; empty unless the policy's threshold is met */
    size_t signer_count;
    vcc_signature_problem *problems;
    size_t problem_count;
} vcc_signature_check;

/* Who signed a file, as the host verified it against the trust policy
   (`PATH.dsse.json` beside it). A validator never verifies a signature. */
vcc_signature_check vcc_signatures(const char *path);

/* ---- AI judges (the judges the contract grants this criterion) -------- */

size_t vcc_judges(char ***out);

typedef struct {
    const char *judge;  /* a granted judge by name; NULL or "": the first */
    const char *system; /* NULL: no system message */
    const char *user;   /* the question */
    /* Snapshot files by digest (vcc_stat's digest): the host appends their
       text to the question as delimited, untrusted data. */
    const char *const *files;
    size_t file_count;
    const char *schema; /* JSON Schema text the answer must match; NULL: none */
    uint32_t sample;    /* 0, 1, ...: K samples are K requests */
} vcc_judge_request;

typedef struct {
    bool ok;
    char *text;  /* with a schema, the checked JSON document */
    char *model; /* what the provider says answered */
    char *call;  /* the call's id in the report */
    char *error; /* when !ok: why there is no answer; never guess one */
} vcc_judge_answer;

/* The host runs the requests at once; one answer per request, in order. */
vcc_judge_answer *vcc_complete(const vcc_judge_request *requests, size_t count);

#ifdef __cplusplus
}
#endif

#endif /* VCC_SDK_H */
