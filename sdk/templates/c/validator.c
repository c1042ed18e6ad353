/* {{name}}: a vcc validator in C (the SDK is vcc_sdk.h; `vcc validator
   build` writes it into .vcc/sdk/c and compiles it in). */
#include <string.h>

#include "vcc_sdk.h"

void vcc_describe(vcc_description *d) {
    d->name = "{{name}}";
    d->version = "0.1.0";
    d->summary = "target files contain no TODO";
    /* A JSON Schema for the criterion's params; vcc lint checks them. */
    d->params_schema = "{\"type\":\"object\",\"additionalProperties\":false}";
}

vcc_outcome *vcc_validate(const vcc_criterion *c) {
    vcc_outcome *o = vcc_pass("no TODO");
    unsigned found = 0;
    for (size_t t = 0; t < c->target_count; t++)
        for (size_t i = 0; i < c->targets[t].path_count; i++) {
            const char *path = c->targets[t].paths[i];
            char *error;
            char *text = vcc_read_text(path, &error);
            if (!text) return vcc_error("%s", error); /* never a pass */
            unsigned line = 1;
            for (char *rest = text, *l; (l = vcc_next_line(&rest)); line++)
                if (strstr(l, "TODO")) {
                    vcc_add_finding(o, "TODO left in", path, line, 0, NULL);
                    found++;
                }
        }
    if (found) {
        vcc_set_status(o, VCC_FAIL);
        vcc_set_summary(o, "%u TODO(s)", found);
    }
    return o;
}
