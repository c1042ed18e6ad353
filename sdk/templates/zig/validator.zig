//! {{name}}: a vcc validator in Zig, over the C SDK (vcc_sdk.h, which
//! `vcc validator build` writes into .vcc/sdk/c and compiles in).
const std = @import("std");
const vcc = @import("vcc_sdk"); // the C SDK, translated by `zig translate-c`

export fn vcc_describe(d: *vcc.vcc_description) void {
    d.name = "{{name}}";
    d.version = "0.1.0";
    d.summary = "target files contain no TODO";
    // A JSON Schema for the criterion's params; vcc lint checks them.
    d.params_schema = "{\"type\":\"object\",\"additionalProperties\":false}";
}

export fn vcc_validate(c: *const vcc.vcc_criterion) ?*vcc.vcc_outcome {
    const o = vcc.vcc_pass("no TODO");
    var found: c_uint = 0;
    for (c.targets[0..c.target_count]) |target| {
        for (target.paths[0..target.path_count]) |path| {
            var err: [*c]u8 = null;
            const text = vcc.vcc_read_text(path, &err);
            if (text == null) return vcc.vcc_error("%s", err); // never a pass
            var lines = std.mem.splitScalar(u8, std.mem.span(text), '\n');
            var line: u32 = 1;
            while (lines.next()) |l| : (line += 1) {
                if (std.mem.indexOf(u8, l, "TODO") != null) {
                    vcc.vcc_add_finding(o, "TODO left in", path, line, 0, null);
                    found += 1;
                }
            }
        }
    }
    if (found > 0) {
        vcc.vcc_set_status(o, vcc.VCC_FAIL);
        vcc.vcc_set_summary(o, "%u TODO(s)", found);
    }
    return o;
}
