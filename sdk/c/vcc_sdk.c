/*
 * vcc_sdk.c: the canonical ABI of vcc:validator@0.1.4 by hand, so a C or
 * Zig validator needs no generated bindings (see vcc_sdk.h).
 *
 * Layouts follow the component model's canonical ABI for wasm32: a string
 * or list is (pointer, length), 8 bytes, align 4; an option or result is a
 * one-byte discriminant followed by its payload at the payload's alignment;
 * a record's fields are laid out in order, each at its alignment. A
 * function whose results flatten to more than one value returns (export)
 * or receives (import) a pointer to them. `vcc validator componentize`
 * checks every signature against the WIT; the conformance suite checks the
 * layouts.
 */
#include "vcc_sdk.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VCC_EXPORT(name) __attribute__((export_name(name)))
#define VCC_IMPORT(module, name) __attribute__((import_module(module), import_name(name)))
#define VCC_DELIVERABLES "vcc:validator/deliverables@" VCC_WIT_VERSION
#define VCC_JUDGE "vcc:validator/judge@" VCC_WIT_VERSION

/* ---- Memory ------------------------------------------------------------ */

static void *vcc_alloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) __builtin_trap(); /* a trap is an error, never a pass */
    return p;
}

static void *vcc_grow(void *p, size_t size) {
    void *q = realloc(p, size ? size : 1);
    if (!q) __builtin_trap();
    return q;
}

static char *vcc_strndup(const char *s, size_t len) {
    char *copy = vcc_alloc(len + 1);
    if (len) memcpy(copy, s, len);
    copy[len] = 0;
    return copy;
}

static char *vcc_strdup_or_null(const char *s) { return s ? vcc_strndup(s, strlen(s)) : NULL; }

/* The host allocates the arguments it passes, and the lists it returns,
   in the guest's memory with this. */
VCC_EXPORT("cabi_realloc")
void *cabi_realloc(void *ptr, size_t old_size, size_t align, size_t new_size) {
    (void)old_size;
    if (new_size == 0) return (void *)align;
    return vcc_grow(ptr, new_size); /* malloc aligns to 16: enough for align 8 */
}

/* ---- Reading the canonical ABI's memory --------------------------------- */

static uint32_t ld32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t ld64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void st32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

static const uint8_t *ptr_at(const uint8_t *p) { return (const uint8_t *)(uintptr_t)ld32(p); }

/* A (pointer, length) string at p, copied and NUL-terminated. */
static char *str_at(const uint8_t *p) { return vcc_strndup((const char *)ptr_at(p), ld32(p + 4)); }

/* A (pointer, length) pair for s at p (s is kept alive: never freed). */
static void put_str(uint8_t *p, const char *s) {
    st32(p, (uint32_t)(uintptr_t)s);
    st32(p + 4, (uint32_t)strlen(s));
}

static void put_opt_str(uint8_t *p, const char *s) {
    memset(p, 0, 12);
    if (s) {
        p[0] = 1;
        put_str(p + 4, s);
    }
}

static void put_opt_u32(uint8_t *p, uint32_t v) {
    memset(p, 0, 8);
    if (v) {
        p[0] = 1;
        st32(p + 4, v);
    }
}

/* A list<string> at p as a NULL-terminated array. */
static size_t strings_at(const uint8_t *p, char ***out) {
    const uint8_t *items = ptr_at(p);
    size_t n = ld32(p + 4);
    char **list = vcc_alloc((n + 1) * sizeof(char *));
    for (size_t i = 0; i < n; i++) list[i] = str_at(items + 8 * i);
    list[n] = NULL;
    if (out) *out = list;
    return n;
}

/* file-info: path @0, size u64 @8, digest @16; 24 bytes, align 8. */
static void file_info_at(const uint8_t *p, vcc_file_info *out) {
    out->path = str_at(p);
    out->size = ld64(p + 8);
    out->digest = str_at(p + 16);
}

static void set_error(char **error, char *message) {
    if (error) *error = message;
}

/* ---- Imports: vcc:validator/deliverables ------------------------------- */

VCC_IMPORT(VCC_DELIVERABLES, "list-files")
extern void vcc_import_list_files(const char *ptr, size_t len, uint8_t *ret);
VCC_IMPORT(VCC_DELIVERABLES, "read-file")
extern void vcc_import_read_file(const char *ptr, size_t len, uint8_t *ret);
VCC_IMPORT(VCC_DELIVERABLES, "stat-file")
extern void vcc_import_stat_file(const char *ptr, size_t len, uint8_t *ret);
VCC_IMPORT(VCC_DELIVERABLES, "list-deliverables")
extern void vcc_import_list_deliverables(uint8_t *ret);
VCC_IMPORT(VCC_DELIVERABLES, "signatures")
extern void vcc_import_signatures(const char *ptr, size_t len, uint8_t *ret);
VCC_IMPORT(VCC_JUDGE, "judges")
extern void vcc_import_judges(uint8_t *ret);
VCC_IMPORT(VCC_JUDGE, "complete")
extern void vcc_import_complete(const uint8_t *ptr, size_t len, uint8_t *ret);

bool vcc_read(const char *path, vcc_bytes *out, char **error) {
    /* result<list<u8>, string>: tag @0, payload @4 */
    _Alignas(8) uint8_t ret[12];
    vcc_import_read_file(path, strlen(path), ret);
    if (ret[0]) {
        set_error(error, str_at(ret + 4));
        return false;
    }
    out->data = ptr_at(ret + 4);
    out->len = ld32(ret + 8);
    return true;
}

/* Well-formed UTF-8 (no overlongs, surrogates, or code points past U+10FFFF). */
static bool utf8_valid(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t extra;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            extra = 1, cp = c & 0x1F, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2, cp = c & 0x0F, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return false;
        }
        if (n - i <= extra) return false;
        for (size_t k = 1; k <= extra; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += extra + 1;
    }
    return true;
}

char *vcc_read_text(const char *path, char **error) {
    vcc_bytes bytes;
    if (!vcc_read(path, &bytes, error)) return NULL;
    if (memchr(bytes.data, 0, bytes.len)) {
        set_error(error, vcc_format("%s holds a NUL byte: read it as bytes with vcc_read", vcc_relative(path)));
        return NULL;
    }
    if (!utf8_valid(bytes.data, bytes.len)) {
        set_error(error, vcc_format("%s is not UTF-8 text: read it as bytes with vcc_read", vcc_relative(path)));
        return NULL;
    }
    return vcc_strndup((const char *)bytes.data, bytes.len);
}

bool vcc_stat(const char *path, vcc_file_info *out, char **error) {
    /* result<file-info, string>: tag @0, payload @8 (file-info aligns to 8) */
    _Alignas(8) uint8_t ret[32];
    vcc_import_stat_file(path, strlen(path), ret);
    if (ret[0]) {
        set_error(error, str_at(ret + 8));
        return false;
    }
    file_info_at(ret + 8, out);
    return true;
}

bool vcc_list_files(const char *deliverable, vcc_file_info **out, size_t *count, char **error) {
    _Alignas(8) uint8_t ret[12];
    vcc_import_list_files(deliverable, strlen(deliverable), ret);
    if (ret[0]) {
        set_error(error, str_at(ret + 4));
        return false;
    }
    const uint8_t *items = ptr_at(ret + 4);
    size_t n = ld32(ret + 8);
    vcc_file_info *files = vcc_alloc(n * sizeof(vcc_file_info));
    for (size_t i = 0; i < n; i++) file_info_at(items + 24 * i, &files[i]);
    *out = files;
    *count = n;
    return true;
}

size_t vcc_deliverable_ids(char ***out) {
    _Alignas(8) uint8_t ret[8];
    vcc_import_list_deliverables(ret);
    return strings_at(ret, out);
}

vcc_signature_check vcc_signatures(const char *path) {
    /* signature-check: signers list @0, problems list @8 */
    _Alignas(8) uint8_t ret[16];
    vcc_import_signatures(path, strlen(path), ret);
    vcc_signature_check check;
    check.signer_count = strings_at(ret, &check.signers);
    const uint8_t *items = ptr_at(ret + 8);
    check.problem_count = ld32(ret + 12);
    check.problems = vcc_alloc(check.problem_count * sizeof(vcc_signature_problem));
    for (size_t i = 0; i < check.problem_count; i++) {
        check.problems[i].code = str_at(items + 16 * i);
        check.problems[i].message = str_at(items + 16 * i + 8);
    }
    return check;
}

/* ---- Imports: vcc:validator/judge -------------------------------------- */

size_t vcc_judges(char ***out) {
    _Alignas(8) uint8_t ret[8];
    vcc_import_judges(ret);
    return strings_at(ret, out);
}

vcc_judge_answer *vcc_complete(const vcc_judge_request *requests, size_t count) {
    /* request: judge @0, messages @8, files @16, schema option<string> @24,
       sample u32 @36; 40 bytes. message: role @0, content @8; 16 bytes. */
    uint8_t *list = vcc_alloc(count * 40);
    for (size_t i = 0; i < count; i++) {
        const vcc_judge_request *r = &requests[i];
        uint8_t *p = list + 40 * i;
        put_str(p, r->judge ? r->judge : "");
        size_t m = r->system ? 2 : 1;
        uint8_t *messages = vcc_alloc(16 * m);
        size_t k = 0;
        if (r->system) {
            put_str(messages, "system");
            put_str(messages + 8, r->system);
            k = 1;
        }
        put_str(messages + 16 * k, "user");
        put_str(messages + 16 * k + 8, r->user ? r->user : "");
        st32(p + 8, (uint32_t)(uintptr_t)messages);
        st32(p + 12, (uint32_t)m);
        uint8_t *files = vcc_alloc(8 * r->file_count);
        for (size_t f = 0; f < r->file_count; f++) put_str(files + 8 * f, r->files[f]);
        st32(p + 16, (uint32_t)(uintptr_t)files);
        st32(p + 20, (uint32_t)r->file_count);
        put_opt_str(p + 24, r->schema);
        st32(p + 36, r->sample);
    }
    _Alignas(8) uint8_t ret[8];
    vcc_import_complete(list, count, ret);
    /* result<answer, string>: tag @0, payload @4; answer: text, model, call */
    const uint8_t *items = ptr_at(ret);
    size_t n = ld32(ret + 4);
    /* One answer per request whatever the host returned: a short list is
       never read past, a long one never written past. */
    size_t slots = n > count ? n : count;
    vcc_judge_answer *answers = vcc_alloc((slots ? slots : 1) * sizeof(vcc_judge_answer));
    for (size_t i = 0; i < n && i < count; i++) {
        const uint8_t *p = items + 28 * i;
        vcc_judge_answer *a = &answers[i];
        memset(a, 0, sizeof *a);
        a->ok = p[0] == 0;
        if (a->ok) {
            a->text = str_at(p + 4);
            a->model = str_at(p + 12);
            a->call = str_at(p + 20);
        } else {
            a->error = str_at(p + 4);
        }
    }
    /* The host answers each request; a missing answer is never an answer. */
    for (size_t i = n; i < count; i++) answers[i] = (vcc_judge_answer){.error = "no answer from the host"};
    return answers;
}

/* ---- Strings ------------------------------------------------------------ */

static char *vformat(const char *fmt, va_list args) {
    va_list again;
    va_copy(again, args);
    int n = vsnprintf(NULL, 0, fmt, args);
    if (n < 0) n = 0;
    char *s = vcc_alloc((size_t)n + 1);
    vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    return s;
}

char *vcc_format(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    char *s = vformat(fmt, args);
    va_end(args);
    return s;
}

char *vcc_next_line(char **rest) {
    char *line = *rest;
    if (!line) return NULL;
    char *p = line;
    while (*p && *p != '\n') p++;
    if (*p) {
        *p = 0;
        *rest = p + 1;
    } else {
        *rest = NULL;
    }
    return line;
}

const char *vcc_relative(const char *path) {
    size_t n = strlen(VCC_MOUNT);
    if (strncmp(path, VCC_MOUNT, n) == 0) {
        if (path[n] == 0) return path + n;
        if (path[n] == '/') return path + n + 1;
    }
    return path;
}

static void buf_append(vcc_buf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 64;
        while (cap < b->len + n + 1) cap *= 2;
        b->data = vcc_grow(b->data, cap);
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void vcc_buf_add(vcc_buf *b, const char *s) { buf_append(b, s, strlen(s)); }

void vcc_buf_addf(vcc_buf *b, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    char *s = vformat(fmt, args);
    va_end(args);
    buf_append(b, s, strlen(s));
    free(s);
}

void vcc_buf_add_json(vcc_buf *b, const char *s) {
    buf_append(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"': buf_append(b, "\\\"", 2); break;
        case '\\': buf_append(b, "\\\\", 2); break;
        case '\n': buf_append(b, "\\n", 2); break;
        case '\r': buf_append(b, "\\r", 2); break;
        case '\t': buf_append(b, "\\t", 2); break;
        case '\b': buf_append(b, "\\b", 2); break;
        case '\f': buf_append(b, "\\f", 2); break;
        default:
            if (*p < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                buf_append(b, esc, 6);
            } else {
                buf_append(b, (const char *)p, 1);
            }
        }
    }
    buf_append(b, "\"", 1);
}

const char *vcc_buf_str(const vcc_buf *b) { return b->data ? b->data : ""; }

/* ---- Outcomes ----------------------------------------------------------- */

static vcc_outcome *outcome(vcc_status status, char *summary) {
    vcc_outcome *o = vcc_alloc(sizeof *o);
    memset(o, 0, sizeof *o);
    o->status = status;
    o->summary = summary;
    return o;
}

#define VCC_OUTCOME_FN(fn, status)            \
    vcc_outcome *fn(const char *fmt, ...) {   \
        va_list args;                         \
        va_start(args, fmt);                  \
        char *summary = vformat(fmt, args);   \
        va_end(args);                         \
        return outcome(status, summary);      \
    }
VCC_OUTCOME_FN(vcc_pass, VCC_PASS)
VCC_OUTCOME_FN(vcc_fail, VCC_FAIL)
VCC_OUTCOME_FN(vcc_skip, VCC_SKIP)

vcc_outcome *vcc_error(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    char *message = vformat(fmt, args);
    va_end(args);
    vcc_outcome *o = outcome(VCC_FAIL, message);
    o->error = message;
    return o;
}

vcc_outcome *vcc_invalid_params(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    char *message = vformat(fmt, args);
    va_end(args);
    vcc_outcome *o = outcome(VCC_FAIL, message);
    o->error = vcc_format("%s %s", VCC_INVALID_PARAMS, message);
    return o;
}

void vcc_set_status(vcc_outcome *o, vcc_status status) { o->status = status; }

void vcc_set_summary(vcc_outcome *o, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    o->summary = vformat(fmt, args);
    va_end(args);
}

void vcc_findings_add(vcc_findings *f, const char *message, const char *path, uint32_t line,
                      uint32_t column, const char *rule) {
    if (f->count == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 8;
        f->items = vcc_grow(f->items, f->cap * sizeof(vcc_finding));
    }
    f->items[f->count++] = (vcc_finding){
        .message = vcc_strndup(message ? message : "", message ? strlen(message) : 0),
        .path = vcc_strdup_or_null(path),
        .line = line,
        .column = column,
        .rule = vcc_strdup_or_null(rule),
    };
}

void vcc_add_finding(vcc_outcome *o, const char *message, const char *path, uint32_t line,
                     uint32_t column, const char *rule) {
    vcc_findings_add(&o->findings, message, path, line, column, rule);
}

void vcc_add_evidence(vcc_outcome *o, const char *name, const char *media_type,
                      const void *bytes, size_t len) {
    if (o->evidence_count == o->evidence_cap) {
        o->evidence_cap = o->evidence_cap ? o->evidence_cap * 2 : 4;
        o->evidence = vcc_grow(o->evidence, o->evidence_cap * sizeof(vcc_evidence));
    }
    uint8_t *copy = vcc_alloc(len);
    if (len) memcpy(copy, bytes, len);
    o->evidence[o->evidence_count++] = (vcc_evidence){
        .name = vcc_strndup(name, strlen(name)),
        .media_type = vcc_strndup(media_type, strlen(media_type)),
        .bytes = copy,
        .len = len,
    };
}

/* ---- JSON (params and answers) ------------------------------------------- */

static const char *ws(const char *p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

/* Past one JSON value, or NULL when it is malformed. Strict, as Python's
   json and serde_json are: exact literals, RFC 8259 numbers, no raw
   control characters in strings, known escapes only. */
static const char *skip_value(const char *p, int depth);

static bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static const char *skip_string(const char *p) {
    if (*p != '"') return NULL;
    for (p++; *p; p++) {
        if ((unsigned char)*p < 0x20) return NULL;
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!is_hex(p[i])) return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) {
                return NULL;
            }
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

static const char *skip_number(const char *p) {
    if (*p == '-') p++;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') while (*p >= '0' && *p <= '9') p++;
    else return NULL;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9')) return NULL;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return NULL;
        while (*p >= '0' && *p <= '9') p++;
    }
    return p;
}

static const char *skip_value(const char *p, int depth) {
    p = ws(p);
    if (depth > 512) return NULL;
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        p = ws(p + 1);
        if (*p == close) return p + 1;
        for (;;) {
            if (close == '}') {
                p = skip_string(ws(p));
                if (!p) return NULL;
                p = ws(p);
                if (*p != ':') return NULL;
                p++;
            }
            p = skip_value(p, depth + 1);
            if (!p) return NULL;
            p = ws(p);
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == close) return p + 1;
            return NULL;
        }
    }
    if (strncmp(p, "true", 4) == 0) return p + 4;
    if (strncmp(p, "false", 5) == 0) return p + 5;
    if (strncmp(p, "null", 4) == 0) return p + 4;
    return skip_number(p);
}

static unsigned hex4(const char *p, bool *ok) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else *ok = false;
    }
    return v;
}

static void put_utf8(vcc_buf *b, unsigned cp) {
    char s[4];
    size_t n;
    if (cp < 0x80) s[0] = (char)cp, n = 1;
    else if (cp < 0x800) s[0] = (char)(0xC0 | cp >> 6), s[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000)
        s[0] = (char)(0xE0 | cp >> 12), s[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
        s[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    else
        s[0] = (char)(0xF0 | cp >> 18), s[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
        s[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), s[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    buf_append(b, s, n);
}

/* A JSON string at p (already checked by skip_string), decoded; *len is
   its length in bytes, which may hold a NUL from \\u0000. */
static char *decode_string(const char *p, size_t *len) {
    vcc_buf b = {0};
    buf_append(&b, "", 0);
    for (p++; *p != '"'; p++) {
        if (*p != '\\') {
            buf_append(&b, p, 1);
            continue;
        }
        p++;
        bool ok = true;
        switch (*p) {
        case 'b': buf_append(&b, "\b", 1); break;
        case 'f': buf_append(&b, "\f", 1); break;
        case 'n': buf_append(&b, "\n", 1); break;
        case 'r': buf_append(&b, "\r", 1); break;
        case 't': buf_append(&b, "\t", 1); break;
        case 'u': {
            unsigned cp = hex4(p + 1, &ok);
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && p[1] == '\\' && p[2] == 'u') {
                unsigned low = hex4(p + 3, &ok);
                if (ok && low >= 0xDC00 && low <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    p += 6;
                }
            }
            /* A lone surrogate cannot be UTF-8: U+FFFD, as serde_json's
               lossy readers do (Python keeps it as an unpaired code unit). */
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
            if (cp == 0) buf_append(&b, "", 1); /* a NUL byte, counted in len */
            else put_utf8(&b, cp);
            break;
        }
        default: buf_append(&b, p, 1); break; /* " \\ / */
        }
    }
    *len = b.len;
    return b.data;
}

/* A decoded string value as a C string; NULL when it holds a NUL. */
static char *c_string_at(const char *p) {
    size_t len;
    if (*p != '"') return NULL;
    char *s = decode_string(p, &len);
    return strlen(s) == len ? s : NULL;
}

/* The value of member `name` of the top-level object; the last one wins,
   as in Python's json and JavaScript's JSON.parse. NULL when absent, or
   when the text is not one well-formed JSON object: a malformed document
   has no members (never a guess at what it meant). */
static const char *member(const char *json, const char *name) {
    if (!json) return NULL;
    const char *start = ws(json);
    const char *end = skip_value(start, 0);
    if (*start != '{' || !end || *ws(end)) return NULL;
    const char *p = ws(start + 1);
    const char *found = NULL;
    size_t name_len = strlen(name);
    while (*p == '"') {
        size_t key_len;
        char *key = decode_string(p, &key_len);
        p = ws(skip_string(p));
        p = ws(p + 1); /* past ':' */
        if (key_len == name_len && memcmp(key, name, key_len) == 0) found = p;
        free(key);
        p = ws(skip_value(p, 0));
        if (*p == ',') p = ws(p + 1);
    }
    return found;
}

bool vcc_json_has(const char *json, const char *name) { return member(json, name) != NULL; }

char *vcc_json_str(const char *json, const char *name, const char *fallback) {
    const char *v = member(json, name);
    char *s = v ? c_string_at(v) : NULL;
    if (s) return s;
    return fallback ? vcc_strndup(fallback, strlen(fallback)) : NULL;
}

long long vcc_json_int(const char *json, const char *name, long long fallback) {
    const char *v = member(json, name);
    if (!v || !(*v == '-' || (*v >= '0' && *v <= '9'))) return fallback;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    /* 1.5 or 1e3 is not an integer here, nor is one past 64 bits. */
    if (*end == '.' || *end == 'e' || *end == 'E' || errno == ERANGE) return fallback;
    return n;
}

bool vcc_json_bool(const char *json, const char *name, bool fallback) {
    const char *v = member(json, name);
    if (v && strncmp(v, "true", 4) == 0) return true;
    if (v && strncmp(v, "false", 5) == 0) return false;
    return fallback;
}

size_t vcc_json_list(const char *json, const char *name, char ***out) {
    const char *p = member(json, name);
    *out = NULL;
    if (!p || *p != '[') return 0;
    size_t n = 0, cap = 4;
    char **items = vcc_alloc(cap * sizeof(char *));
    p = ws(p + 1);
    if (*p != ']') {
        for (;;) {
            char *s = c_string_at(p);
            p = skip_string(p);
            if (!s || !p) return 0;
            if (n + 1 >= cap) items = vcc_grow(items, (cap *= 2) * sizeof(char *));
            items[n++] = s;
            p = ws(p);
            if (*p == ',') {
                p = ws(p + 1);
                continue;
            }
            if (*p != ']') return 0;
            break;
        }
    }
    items[n] = NULL;
    *out = items;
    return n;
}

const char *vcc_param_str(const vcc_criterion *c, const char *name, const char *fallback) {
    return vcc_json_str(c->params, name, fallback);
}
long long vcc_param_int(const vcc_criterion *c, const char *name, long long fallback) {
    return vcc_json_int(c->params, name, fallback);
}
bool vcc_param_bool(const vcc_criterion *c, const char *name, bool fallback) {
    return vcc_json_bool(c->params, name, fallback);
}
size_t vcc_param_list(const vcc_criterion *c, const char *name, char ***out) {
    return vcc_json_list(c->params, name, out);
}
bool vcc_param_has(const vcc_criterion *c, const char *name) { return vcc_json_has(c->params, name); }

/* ---- Exports: vcc:validator/validator and /params ------------------------- */

/* Accepts everything unless the validator defines its own. */
__attribute__((weak)) void vcc_check_params(const char *params, vcc_findings *out) {
    (void)params;
    (void)out;
}

/* The return areas: read by the host right after the call returns. */
static _Alignas(8) uint8_t describe_ret[32];
static _Alignas(8) uint8_t validate_ret[32];
static _Alignas(8) uint8_t check_params_ret[12];

/* list<finding>; finding: message @0, path option<string> @8, line
   option<u32> @20, column option<u32> @28, rule option<string> @36; 48 bytes. */
static void put_findings(uint8_t *p, const vcc_findings *f) {
    uint8_t *items = vcc_alloc(48 * f->count);
    for (size_t i = 0; i < f->count; i++) {
        uint8_t *q = items + 48 * i;
        const vcc_finding *x = &f->items[i];
        put_str(q, x->message);
        put_opt_str(q + 8, x->path);
        put_opt_u32(q + 20, x->line);
        put_opt_u32(q + 28, x->column);
        put_opt_str(q + 36, x->rule);
    }
    st32(p, (uint32_t)(uintptr_t)items);
    st32(p + 4, (uint32_t)f->count);
}

VCC_EXPORT("vcc:validator/validator@" VCC_WIT_VERSION "#describe")
uint8_t *vcc_export_describe(void) {
    vcc_description d = {"", "0.0.0", "", "{}"};
    vcc_describe(&d);
    put_str(describe_ret, vcc_strdup_or_null(d.name ? d.name : ""));
    put_str(describe_ret + 8, vcc_strdup_or_null(d.version ? d.version : "0.0.0"));
    put_str(describe_ret + 16, vcc_strdup_or_null(d.summary ? d.summary : ""));
    put_str(describe_ret + 24, vcc_strdup_or_null(d.params_schema ? d.params_schema : "{}"));
    return describe_ret;
}

VCC_EXPORT("vcc:validator/validator@" VCC_WIT_VERSION "#validate")
uint8_t *vcc_export_validate(const uint8_t *id, size_t id_len, const uint8_t *params,
                             size_t params_len, const uint8_t *targets, size_t target_count) {
    /* target: id @0, paths list<string> @8; 16 bytes */
    vcc_target *list = vcc_alloc((target_count ? target_count : 1) * sizeof(vcc_target));
    for (size_t i = 0; i < target_count; i++) {
        char **paths;
        list[i].id = str_at(targets + 16 * i);
        list[i].path_count = strings_at(targets + 16 * i + 8, &paths);
        list[i].paths = (const char *const *)paths;
    }
    vcc_criterion c = {
        .id = vcc_strndup((const char *)id, id_len),
        .params = vcc_strndup((const char *)params, params_len),
        .targets = list,
        .target_count = target_count,
    };
    vcc_outcome *o = vcc_validate(&c);
    memset(validate_ret, 0, sizeof validate_ret);
    if (!o) {
        validate_ret[0] = 1;
        put_str(validate_ret + 4, "vcc_validate returned NULL, not an outcome (use vcc_pass/vcc_fail/vcc_skip)");
        return validate_ret;
    }
    if (o->error) {
        validate_ret[0] = 1;
        put_str(validate_ret + 4, o->error);
        return validate_ret;
    }
    /* outcome: status @0, summary @4, findings @12, evidence @20 (+4 here) */
    validate_ret[4] = (uint8_t)o->status;
    put_str(validate_ret + 8, o->summary ? o->summary : "");
    put_findings(validate_ret + 16, &o->findings);
    /* evidence: name @0, media-type @8, bytes @16; 24 bytes */
    uint8_t *evidence = vcc_alloc(24 * o->evidence_count);
    for (size_t i = 0; i < o->evidence_count; i++) {
        uint8_t *q = evidence + 24 * i;
        put_str(q, o->evidence[i].name);
        put_str(q + 8, o->evidence[i].media_type);
        st32(q + 16, (uint32_t)(uintptr_t)o->evidence[i].bytes);
        st32(q + 20, (uint32_t)o->evidence[i].len);
    }
    st32(validate_ret + 24, (uint32_t)(uintptr_t)evidence);
    st32(validate_ret + 28, (uint32_t)o->evidence_count);
    return validate_ret;
}

VCC_EXPORT("vcc:validator/params@" VCC_WIT_VERSION "#check-params")
uint8_t *vcc_export_check_params(const uint8_t *params, size_t len) {
    vcc_findings found = {0};
    vcc_check_params(vcc_strndup((const char *)params, len), &found);
    memset(check_params_ret, 0, sizeof check_params_ret);
    if (found.count) {
        check_params_ret[0] = 1;
        put_findings(check_params_ret + 4, &found);
    }
    return check_params_ret;
}
