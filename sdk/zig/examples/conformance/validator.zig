//! The SDK conformance validator in Zig (spec: sdk/conformance/README.md),
//! over the C SDK (vcc_sdk.h, translated into the module `vcc_sdk`).
const std = @import("std");
const vcc = @import("vcc_sdk");

const SCORE = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"score\"]," ++
    "\"properties\":{\"score\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5}}}";

export fn vcc_describe(d: *vcc.vcc_description) void {
    d.name = "conformance";
    d.version = "0.1.0";
    d.summary = "counts lines containing a word (the SDK conformance validator)";
    d.params_schema = "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"word\"]," ++
        "\"properties\":{\"word\":{\"type\":\"string\",\"minLength\":1}," ++
        "\"max\":{\"type\":\"integer\",\"minimum\":0,\"default\":0}," ++
        "\"mode\":{\"enum\":[\"check\",\"skip\",\"error\",\"params-error\",\"judge\",\"signatures\"],\"default\":\"check\"}}}";
}

/// Unicode White_Space, as Rust's char::is_whitespace and Python's isspace.
fn hasSpace(s: []const u8) bool {
    const view = std.unicode.Utf8View.init(s) catch return false;
    var it = view.iterator();
    while (it.nextCodepoint()) |cp| {
        switch (cp) {
            0x9...0xD, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000 => return true,
            else => {},
        }
    }
    return false;
}

export fn vcc_check_params(params: [*c]const u8, out: *vcc.vcc_findings) void {
    const word = vcc.vcc_json_str(params, "word", "");
    if (hasSpace(std.mem.span(word))) vcc.vcc_findings_add(out, "word must be one word", "/word", 0, 0, null);
}

fn judged(c: *const vcc.vcc_criterion, word: [*c]const u8) [*c]vcc.vcc_outcome {
    var granted: [*c][*c]u8 = null;
    if (vcc.vcc_judges(&granted) == 0) return vcc.vcc_error("no judge granted");
    var n: usize = 0;
    for (c.targets[0..c.target_count]) |t| n += t.path_count;
    const asks: [*c]vcc.vcc_judge_request = @ptrCast(@alignCast(std.c.calloc(2 * n + 1, @sizeOf(vcc.vcc_judge_request))));
    const paths: [*c][*c]const u8 = @ptrCast(@alignCast(std.c.calloc(2 * n + 1, @sizeOf([*c]const u8))));
    const question = vcc.vcc_format("Rate the document for the word %s from 1 to 5.", word);
    var k: usize = 0;
    for (c.targets[0..c.target_count]) |t| {
        for (t.paths[0..t.path_count]) |path| {
            var info: vcc.vcc_file_info = undefined;
            var err: [*c]u8 = null;
            if (!vcc.vcc_stat(path, &info, &err)) return vcc.vcc_error("%s", err);
            const files: [*c][*c]const u8 = @ptrCast(@alignCast(std.c.malloc(@sizeOf([*c]const u8))));
            files[0] = info.digest;
            for (0..2) |sample| {
                asks[k] = .{
                    .judge = null,
                    .system = "You rate documents.",
                    .user = question,
                    .files = files,
                    .file_count = 1,
                    .schema = SCORE,
                    .sample = @intCast(sample),
                };
                paths[k] = path;
                k += 1;
            }
        }
    }
    const answers = vcc.vcc_complete(asks, k);
    for (answers[0..k]) |a| {
        if (!a.ok) return vcc.vcc_error("judge: %s", a.@"error");
    }
    const o = vcc.vcc_pass("scores");
    var summary: vcc.vcc_buf = std.mem.zeroes(vcc.vcc_buf);
    var calls: vcc.vcc_buf = std.mem.zeroes(vcc.vcc_buf);
    vcc.vcc_buf_add(&summary, "scores ");
    vcc.vcc_buf_add(&calls, "[");
    for (answers[0..k], 0..) |a, i| {
        const score: c_longlong = vcc.vcc_json_int(a.text, "score", 0);
        vcc.vcc_buf_addf(&summary, if (i == 0) "%lld" else ",%lld", score);
        if (i > 0) vcc.vcc_buf_add(&calls, ",");
        vcc.vcc_buf_add_json(&calls, a.call);
        if (score < 3) {
            vcc.vcc_add_finding(o, vcc.vcc_format("score %lld", score), paths[i], 0, 0, "judge");
            vcc.vcc_set_status(o, vcc.VCC_FAIL);
        }
    }
    vcc.vcc_buf_add(&calls, "]");
    vcc.vcc_set_summary(o, "%s", vcc.vcc_buf_str(&summary));
    vcc.vcc_add_evidence(o, "calls.json", "application/json", calls.data, calls.len);
    return o;
}

const Signed = struct { path: []const u8, check: vcc.vcc_signature_check };

fn bySignedPath(_: void, a: Signed, b: Signed) bool {
    return std.mem.order(u8, a.path, b.path) == .lt;
}

/// `mode: signatures`: who signed each target file, as the host says.
fn signed(c: *const vcc.vcc_criterion) [*c]vcc.vcc_outcome {
    var n: usize = 0;
    for (c.targets[0..c.target_count]) |t| n += t.path_count;
    const files: [*]Signed = @ptrCast(@alignCast(std.c.calloc(n + 1, @sizeOf(Signed))));
    const o = vcc.vcc_pass("signed");
    var unsigned_files: usize = 0;
    var k: usize = 0;
    for (c.targets[0..c.target_count]) |t| {
        for (t.paths[0..t.path_count]) |path| {
            const check = vcc.vcc_signatures(path);
            if (check.signer_count == 0) {
                const code: [*c]const u8 = if (check.problem_count > 0) check.problems[0].code else "none";
                vcc.vcc_add_finding(o, vcc.vcc_format("not signed: %s", code), path, 0, 0, "signature");
                unsigned_files += 1;
            }
            files[k] = .{ .path = std.mem.span(vcc.vcc_relative(path)), .check = check };
            k += 1;
        }
    }
    std.mem.sort(Signed, files[0..k], {}, bySignedPath);
    var evidence: vcc.vcc_buf = std.mem.zeroes(vcc.vcc_buf);
    vcc.vcc_buf_add(&evidence, "{");
    for (files[0..k], 0..) |f, i| {
        if (i > 0) vcc.vcc_buf_add(&evidence, ",");
        vcc.vcc_buf_add_json(&evidence, f.path.ptr);
        vcc.vcc_buf_add(&evidence, ":[");
        for (f.check.signers[0..f.check.signer_count], 0..) |signer, j| {
            if (j > 0) vcc.vcc_buf_add(&evidence, ",");
            vcc.vcc_buf_add_json(&evidence, signer);
        }
        vcc.vcc_buf_add(&evidence, "]");
    }
    vcc.vcc_buf_add(&evidence, "}");
    vcc.vcc_set_summary(o, "%zu of %zu file(s) signed", n - unsigned_files, n);
    vcc.vcc_add_evidence(o, "signers.json", "application/json", evidence.data, evidence.len);
    if (unsigned_files > 0) vcc.vcc_set_status(o, vcc.VCC_FAIL);
    return o;
}

const Count = struct { path: []const u8, lines: c_longlong };

fn byPath(_: void, a: Count, b: Count) bool {
    return std.mem.order(u8, a.path, b.path) == .lt;
}

export fn vcc_validate(c: *const vcc.vcc_criterion) [*c]vcc.vcc_outcome {
    const word = vcc.vcc_param_str(c, "word", "");
    const mode = std.mem.span(vcc.vcc_param_str(c, "mode", "check"));
    if (std.mem.eql(u8, mode, "skip")) return vcc.vcc_skip("asked to skip");
    if (std.mem.eql(u8, mode, "error")) return vcc.vcc_error("asked to fail");
    if (std.mem.eql(u8, mode, "params-error")) return vcc.vcc_invalid_params("asked to blame the params");
    if (std.mem.eql(u8, mode, "judge")) return judged(c, word);
    if (std.mem.eql(u8, mode, "signatures")) return signed(c);

    const needle = std.mem.span(word);
    const o = vcc.vcc_pass("checked");
    var n: usize = 0;
    for (c.targets[0..c.target_count]) |t| n += t.path_count;
    const counts: [*]Count = @ptrCast(@alignCast(std.c.calloc(n + 1, @sizeOf(Count))));
    var total: c_longlong = 0;
    var k: usize = 0;
    for (c.targets[0..c.target_count]) |t| {
        for (t.paths[0..t.path_count]) |path| {
            var err: [*c]u8 = null;
            const text = vcc.vcc_read_text(path, &err);
            if (text == null) return vcc.vcc_error("%s", err);
            var lines = std.mem.splitScalar(u8, std.mem.span(text), '\n');
            var line: u32 = 1;
            var found: c_longlong = 0;
            while (lines.next()) |l| : (line += 1) {
                if (std.mem.indexOf(u8, l, needle) != null) {
                    found += 1;
                    vcc.vcc_add_finding(o, vcc.vcc_format("found %s", word), path, line, 0, "word");
                }
            }
            // The same file in two targets counts once in the evidence.
            const rel = std.mem.span(vcc.vcc_relative(path));
            var seen = false;
            for (counts[0..k]) |*e| {
                if (std.mem.eql(u8, e.path, rel)) {
                    e.lines = found;
                    seen = true;
                }
            }
            if (!seen) {
                counts[k] = .{ .path = rel, .lines = found };
                k += 1;
            }
            total += found;
        }
    }
    // Keys sorted by bytes (code point order in UTF-8), no spaces.
    std.mem.sort(Count, counts[0..k], {}, byPath);
    var evidence: vcc.vcc_buf = std.mem.zeroes(vcc.vcc_buf);
    vcc.vcc_buf_add(&evidence, "{");
    for (counts[0..k], 0..) |e, i| {
        if (i > 0) vcc.vcc_buf_add(&evidence, ",");
        const key = vcc.vcc_format("%.*s", @as(c_int, @intCast(e.path.len)), e.path.ptr);
        vcc.vcc_buf_add_json(&evidence, key);
        vcc.vcc_buf_addf(&evidence, ":%lld", e.lines);
    }
    vcc.vcc_buf_add(&evidence, "}");
    vcc.vcc_set_summary(o, "%lld occurrence(s) of %s", total, word);
    vcc.vcc_add_evidence(o, "counts.json", "application/json", evidence.data, evidence.len);
    if (total > vcc.vcc_param_int(c, "max", 0)) vcc.vcc_set_status(o, vcc.VCC_FAIL);
    return o;
}
