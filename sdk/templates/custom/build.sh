#!/bin/sh
# The build of {{name}}: `vcc validator build` runs this in the project
# folder (with VCC_SDK_C=.vcc/sdk/c and VCC_WIT_DIR=.vcc/wit set) and
# expects the file named by `output:` in vcc-validator.yaml: a wasip1 core
# module (vcc componentizes it) or a finished component. Replace it with
# your toolchain's commands; this one compiles validator.c with zig cc.
set -eu
mkdir -p build
zig=$(command -v zig || command -v python-zig)
"$zig" cc --target=wasm32-wasi -mexec-model=reactor -O2 -s \
    -I "$VCC_SDK_C" -o build/core.wasm validator.c "$VCC_SDK_C/vcc_sdk.c"
