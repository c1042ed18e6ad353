/* The C SDK's JSON reader, natively: `harness KEY < DOC` prints what
   vcc_json_has/int/str/list give for KEY, as one JSON line. The host
   imports are stubs (never called by the JSON reader). */
#include <stdio.h>
#include <stdlib.h>

#include "vcc_sdk.h"

void vcc_import_list_files(const char *p, size_t l, uint8_t *r) { abort(); }
void vcc_import_read_file(const char *p, size_t l, uint8_t *r) { abort(); }
void vcc_import_stat_file(const char *p, size_t l, uint8_t *r) { abort(); }
void vcc_import_list_deliverables(uint8_t *r) { abort(); }
void vcc_import_signatures(const char *p, size_t l, uint8_t *r) { abort(); }
void vcc_import_judges(uint8_t *r) { abort(); }
void vcc_import_complete(const uint8_t *p, size_t l, uint8_t *r) { abort(); }
void vcc_describe(vcc_description *d) { (void)d; }
vcc_outcome *vcc_validate(const vcc_criterion *c) { (void)c; return NULL; }

int main(int argc, char **argv) {
    static char doc[1 << 20];
    size_t n = fread(doc, 1, sizeof doc - 1, stdin);
    doc[n] = 0;
    const char *key = argc > 1 ? argv[1] : "";
    char **list;
    size_t items = vcc_json_list(doc, key, &list);
    char *s = vcc_json_str(doc, key, NULL);
    vcc_buf out = {0};
    vcc_buf_addf(&out, "{\"has\":%s,\"int\":", vcc_json_has(doc, key) ? "true" : "false");
    long long a = vcc_json_int(doc, key, 1), b = vcc_json_int(doc, key, 2);
    if (a == b) vcc_buf_addf(&out, "%lld", a);
    else vcc_buf_add(&out, "null");
    vcc_buf_add(&out, ",\"bool\":");
    bool t = vcc_json_bool(doc, key, true), f = vcc_json_bool(doc, key, false);
    vcc_buf_add(&out, t == f ? (t ? "true" : "false") : "null");
    vcc_buf_add(&out, ",\"str\":");
    if (s) vcc_buf_add_json(&out, s);
    else vcc_buf_add(&out, "null");
    vcc_buf_add(&out, ",\"list\":[");
    for (size_t i = 0; i < items; i++) {
        if (i) vcc_buf_add(&out, ",");
        vcc_buf_add_json(&out, list[i]);
    }
    vcc_buf_add(&out, "]}");
    puts(vcc_buf_str(&out));
    return 0;
}
