#!/usr/bin/env node
// The `vcc` command of the npm package: run the binary of the platform
// package npm installed beside this one (the esbuild/biome pattern: one
// optional dependency per platform, npm installs only the one whose `os`
// and `cpu` match). Exits with vcc's code; a signal that ended vcc ends
// this process the same way.
"use strict";
const { spawnSync } = require("node:child_process");
const path = require("node:path");

const platforms = {
  "linux-x64": "vcc-contracts-linux-x64",
  "linux-arm64": "vcc-contracts-linux-arm64",
  "darwin-x64": "vcc-contracts-darwin-x64",
  "darwin-arm64": "vcc-contracts-darwin-arm64",
};
const key = `${process.platform}-${process.arch}`;
const pkg = platforms[key];
if (!pkg) {
  console.error(`vcc: no prebuilt binary for ${key}; build from source: cargo install --locked --path host/cli`);
  process.exit(2);
}
let bin;
try {
  const dir = path.dirname(require.resolve(`${pkg}/package.json`));
  bin = path.join(dir, "bin", process.platform === "win32" ? "vcc.exe" : "vcc");
} catch {
  console.error(`vcc: the platform package ${pkg} is not installed (npm installs it as an optional dependency: was --omit=optional or --no-optional used?)`);
  process.exit(2);
}
const run = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  console.error(`vcc: could not run ${bin}: ${run.error.message}`);
  process.exit(2);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status ?? 2);
