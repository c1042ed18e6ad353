/* The SDK conformance validator in C (spec: sdk/conformance/README.md). */
#include <stdlib.h>
#include <string.h>

#include "vcc_sdk.h"

static const char *SCORE =
    "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"score\"],"
    "\"properties\":{\"score\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5}}}";

void vcc_describe(vcc_description *d) {
    d->name = "conformance";
    d->version = "0.1.0";
    d->summary = "counts lines containing a word (the SDK conformance validator)";
    d->params_schema =
        "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"word\"],"
        "\"properties\":{\"word\":{\"type\":\"string\",\"minLength\":1},"
        "\"max\":{\"type\":\"integer\",\"minimum\":0,\"default\":0},"
        "\"mode\":{\"enum\":[\"check\",\"skip\",\"error\",\"params-error\",\"judge\",\"signatures\"],\"default\":\"check\"}}}";
}

/* Unicode White_Space, as Rust's char::is_whitespace and Python's isspace. */
static int has_space(const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned cp;
        int n;
        if (*p < 0x80) cp = *p, n = 1;
        else if ((*p & 0xE0) == 0xC0) cp = *p & 0x1F, n = 2;
        else if ((*p & 0xF0) == 0xE0) cp = *p & 0x0F, n = 3;
        else cp = *p & 0x07, n = 4;
        for (int k = 1; k < n && p[k]; k++) cp = (cp << 6) | (p[k] & 0x3F);
        if ((cp >= 0x9 && cp <= 0xD) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
            (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
            cp == 0x205F || cp == 0x3000)
            return 1;
        for (int k = 0; k < n && *p; k++) p++;
    }
    return 0;
}

void vcc_check_params(const char *params, vcc_findings *out) {
    if (has_space(vcc_json_str(params, "word", "")))
        vcc_findings_add(out, "word must be one word", "/word", 0, 0, NULL);
}

static int by_path(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static vcc_outcome *judged(const vcc_criterion *c, const char *word) {
    char **granted;
    if (vcc_judges(&granted) == 0) return vcc_error("no judge granted");
    size_t n = 0;
    for (size_t t = 0; t < c->target_count; t++) n += c->targets[t].path_count;
    vcc_judge_request *asks = calloc(2 * n + 1, sizeof *asks);
    const char **paths = calloc(2 * n + 1, sizeof *paths);
    char *question = vcc_format("Rate the document for the word %s from 1 to 5.", word);
    size_t k = 0;
    for (size_t t = 0; t < c->target_count; t++)
        for (size_t i = 0; i < c->targets[t].path_count; i++) {
            vcc_file_info info;
            char *error;
            if (!vcc_stat(c->targets[t].paths[i], &info, &error)) return vcc_error("%s", error);
            const char **files = malloc(sizeof *files);
            files[0] = info.digest;
            for (unsigned sample = 0; sample < 2; sample++, k++) {
                asks[k] = (vcc_judge_request){.system = "You rate documents.", .user = question,
                                              .files = files, .file_count = 1, .schema = SCORE,
                                              .sample = sample};
                paths[k] = c->targets[t].paths[i];
            }
        }
    vcc_judge_answer *answers = vcc_complete(asks, k);
    for (size_t i = 0; i < k; i++)
        if (!answers[i].ok) return vcc_error("judge: %s", answers[i].error);
    vcc_outcome *o = vcc_pass("scores");
    vcc_buf summary = {0}, calls = {0};
    vcc_buf_add(&summary, "scores ");
    vcc_buf_add(&calls, "[");
    for (size_t i = 0; i < k; i++) {
        long long score = vcc_json_int(answers[i].text, "score", 0);
        vcc_buf_addf(&summary, i ? ",%lld" : "%lld", score);
        if (i) vcc_buf_add(&calls, ",");
        vcc_buf_add_json(&calls, answers[i].call);
        if (score < 3) {
            char *message = vcc_format("score %lld", score);
            vcc_add_finding(o, message, paths[i], 0, 0, "judge");
            vcc_set_status(o, VCC_FAIL);
        }
    }
    vcc_buf_add(&calls, "]");
    vcc_set_summary(o, "%s", vcc_buf_str(&summary));
    vcc_add_evidence(o, "calls.json", "application/json", calls.data, calls.len);
    return o;
}

typedef struct {
    const char *path;
    vcc_signature_check check;
} signed_file;

static int by_file(const void *a, const void *b) {
    return strcmp(((const signed_file *)a)->path, ((const signed_file *)b)->path);
}

/* mode: signatures: who signed each target file, as the host says. */
static vcc_outcome *signers_of(const vcc_criterion *c) {
    size_t n = 0, unsigned_files = 0;
    for (size_t t = 0; t < c->target_count; t++) n += c->targets[t].path_count;
    signed_file *files = calloc(n + 1, sizeof *files);
    vcc_outcome *o = vcc_pass("signed");
    size_t k = 0;
    for (size_t t = 0; t < c->target_count; t++)
        for (size_t i = 0; i < c->targets[t].path_count; i++) {
            const char *path = c->targets[t].paths[i];
            vcc_signature_check check = vcc_signatures(path);
            if (check.signer_count == 0) {
                const char *code = check.problem_count ? check.problems[0].code : "none";
                vcc_add_finding(o, vcc_format("not signed: %s", code), path, 0, 0, "signature");
                unsigned_files++;
            }
            files[k++] = (signed_file){vcc_relative(path), check};
        }
    qsort(files, k, sizeof *files, by_file);
    vcc_buf evidence = {0};
    vcc_buf_add(&evidence, "{");
    for (size_t i = 0; i < k; i++) {
        if (i) vcc_buf_add(&evidence, ",");
        vcc_buf_add_json(&evidence, files[i].path);
        vcc_buf_add(&evidence, ":[");
        for (size_t j = 0; j < files[i].check.signer_count; j++) {
            if (j) vcc_buf_add(&evidence, ",");
            vcc_buf_add_json(&evidence, files[i].check.signers[j]);
        }
        vcc_buf_add(&evidence, "]");
    }
    vcc_buf_add(&evidence, "}");
    vcc_set_summary(o, "%zu of %zu file(s) signed", n - unsigned_files, n);
    vcc_add_evidence(o, "signers.json", "application/json", evidence.data, evidence.len);
    if (unsigned_files) vcc_set_status(o, VCC_FAIL);
    return o;
}

vcc_outcome *vcc_validate(const vcc_criterion *c) {
    const char *word = vcc_param_str(c, "word", "");
    const char *mode = vcc_param_str(c, "mode", "check");
    if (strcmp(mode, "skip") == 0) return vcc_skip("asked to skip");
    if (strcmp(mode, "error") == 0) return vcc_error("asked to fail");
    if (strcmp(mode, "params-error") == 0) return vcc_invalid_params("asked to blame the params");
    if (strcmp(mode, "judge") == 0) return judged(c, word);
    if (strcmp(mode, "signatures") == 0) return signers_of(c);

    vcc_outcome *o = vcc_pass("checked");
    size_t n = 0;
    for (size_t t = 0; t < c->target_count; t++) n += c->targets[t].path_count;
    /* counts.json: root-relative path → lines, keys sorted (by bytes, which
       is code point order in UTF-8), no spaces */
    const char **keys = calloc(n + 1, sizeof *keys);
    long long *counts = calloc(n + 1, sizeof *counts);
    long long total = 0;
    size_t k = 0;
    for (size_t t = 0; t < c->target_count; t++)
        for (size_t i = 0; i < c->targets[t].path_count; i++) {
            const char *path = c->targets[t].paths[i];
            char *error;
            char *text = vcc_read_text(path, &error);
            if (!text) return vcc_error("%s", error);
            long long lines = 0;
            unsigned line = 1;
            for (char *rest = text, *l; (l = vcc_next_line(&rest)); line++)
                if (strstr(l, word)) {
                    lines++;
                    vcc_add_finding(o, vcc_format("found %s", word), path, line, 0, "word");
                }
            keys[k] = vcc_relative(path);
            counts[k++] = lines;
            total += lines;
        }
    /* sort the keys, carrying their counts */
    const char **sorted = calloc(k + 1, sizeof *sorted);
    memcpy(sorted, keys, k * sizeof *keys);
    qsort(sorted, k, sizeof *sorted, by_path);
    vcc_buf evidence = {0};
    vcc_buf_add(&evidence, "{");
    for (size_t i = 0; i < k; i++) {
        if (i && strcmp(sorted[i], sorted[i - 1]) == 0) continue;
        long long lines = 0;
        for (size_t j = 0; j < k; j++)
            if (strcmp(keys[j], sorted[i]) == 0) lines = counts[j];
        if (evidence.len > 1) vcc_buf_add(&evidence, ",");
        vcc_buf_add_json(&evidence, sorted[i]);
        vcc_buf_addf(&evidence, ":%lld", lines);
    }
    vcc_buf_add(&evidence, "}");
    vcc_set_summary(o, "%lld occurrence(s) of %s", total, word);
    vcc_add_evidence(o, "counts.json", "application/json", evidence.data, evidence.len);
    if (total > vcc_param_int(c, "max", 0)) vcc_set_status(o, VCC_FAIL);
    return o;
}
