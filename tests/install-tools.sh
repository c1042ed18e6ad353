#!/usr/bin/env bash
# Everything the test suite needs beyond Rust, installed by the project:
#   - the validator tools (sdk/install-tools.sh: componentize-py/-js, the
#     wasm32-wasip2 target);
#   - a real OCI registry and an independent OCI client, from Debian:
#     docker-registry (the CNCF distribution server) and skopeo;
#   - an independent DSSE/Ed25519 implementation, from PyPI:
#     securesystemslib, in $VCC_TOOLS_DIR/trust-py;
#   - independent MCP clients and pre-commit itself: mcp and pre-commit
#     from PyPI, in $VCC_TOOLS_DIR/agents-py; the official TypeScript SDK
#     (@modelcontextprotocol/sdk) from npm, in $VCC_TOOLS_DIR/mcp-npm;
#   - readers of the reports vcc writes, none of them vcc's: junitparser,
#     sarif-tools, in-toto, in-toto-attestation (the in-toto project's
#     Statement and predicate bindings), securesystemslib and cryptography
#     from PyPI in
#     $VCC_TOOLS_DIR/reports-py; Microsoft's SARIF Multitool (the SARIF
#     SDK's validator, with the official 2.1.0 schema) from npm in
#     $VCC_TOOLS_DIR/sarif-npm; ajv-cli from npm in $VCC_TOOLS_DIR/ajv-npm
#     (GitLab Code Quality against its documented shape); chromium from
#     Debian (the HTML report, rendered headless);
#   - with VCC_INSTALL_LLAMA=1 only, a real inference engine for the AI
#     judge's smoke test: llama.cpp
#     through llama-cpp-python's OpenAI-compatible server (PyPI ships it as
#     source: built here with the cmake from PyPI, generic CPU code, once on a
#     fresh machine) and gguf (writes the tiny model the test serves), in
#     $VCC_TOOLS_DIR/llama-py.
# Safe to run again: what is installed is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

bash sdk/install-tools.sh

SECURESYSTEMSLIB=1.6.0
MCP=2.3.0
PRE_COMMIT=4.7.0
JUNITPARSER=5.0.3
SARIF_TOOLS=3.0.5
IN_TOTO=3.1.0
CRYPTOGRAPHY=50.0.2
IN_TOTO_ATTESTATION=0.9.3
SECURESYSTEMSLIB_REPORTS=1.6.0
SARIF_MULTITOOL=5.7.0
AJV_CLI=5.0.0
MCP_SDK_NPM=1.32.2
LLAMA_CPP_PYTHON=0.3.36
GGUF=0.19.0

missing=()
command -v docker-registry >/dev/null || missing+=(docker-registry)
command -v skopeo >/dev/null || missing+=(skopeo)
command -v groff >/dev/null || missing+=(groff-base)   # reads back `vcc man`
command -v chromium >/dev/null || missing+=(chromium)  # renders the HTML report
command -v unzip >/dev/null || missing+=(unzip)        # the archives differential's reference
command -v tar >/dev/null || missing+=(tar)            # (GNU tar, with gzip)
command -v gzip >/dev/null || missing+=(gzip)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]} (apt)" >&2
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null ||
        { "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q "${missing[@]}" >/dev/null; }
fi

tools="${VCC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vcc-tools}"
py="$tools/trust-py"
if ! "$py/bin/python" -c "import securesystemslib, sys; sys.exit(securesystemslib.__version__ != '$SECURESYSTEMSLIB')" 2>/dev/null; then
    echo "installing securesystemslib $SECURESYSTEMSLIB into $py" >&2
    rm -rf "$py"
    python3 -m venv "$py"
    "$py/bin/pip" install --quiet --disable-pip-version-check "securesystemslib[crypto]==$SECURESYSTEMSLIB"
fi

agents_py="$tools/agents-py"
if ! "$agents_py/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '$MCP' or m.version('pre-commit') != '$PRE_COMMIT')" 2>/dev/null; then
    echo "installing mcp $MCP and pre-commit $PRE_COMMIT into $agents_py" >&2
    rm -rf "$agents_py"
    python3 -m venv "$agents_py"
    "$agents_py/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP" "pre-commit==$PRE_COMMIT"
fi

reports_py="$tools/reports-py"
if ! "$reports_py/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('junitparser') != '$JUNITPARSER' or m.version('sarif-tools') != '$SARIF_TOOLS' or m.version('in-toto') != '$IN_TOTO' or m.version('cryptography') != '$CRYPTOGRAPHY' or m.version('in-toto-attestation') != '$IN_TOTO_ATTESTATION')" 2>/dev/null; then
    echo "installing junitparser $JUNITPARSER, sarif-tools $SARIF_TOOLS, in-toto $IN_TOTO, in-toto-attestation $IN_TOTO_ATTESTATION, cryptography $CRYPTOGRAPHY into $reports_py" >&2
    rm -rf "$reports_py"
    python3 -m venv "$reports_py"
    "$reports_py/bin/pip" install --quiet --disable-pip-version-check \
        "junitparser==$JUNITPARSER" "sarif-tools==$SARIF_TOOLS" "in-toto==$IN_TOTO" \
        "in-toto-attestation==$IN_TOTO_ATTESTATION" "securesystemslib[crypto]==$SECURESYSTEMSLIB_REPORTS" "cryptography==$CRYPTOGRAPHY"
fi

sarif_npm="$tools/sarif-npm"
installed=$(node -p "try { require('$sarif_npm/node_modules/@microsoft/sarif-multitool/package.json').version } catch { '' }" 2>/dev/null || true)
if [ "$installed" != "$SARIF_MULTITOOL" ]; then
    echo "installing @microsoft/sarif-multitool $SARIF_MULTITOOL into $sarif_npm" >&2
    mkdir -p "$sarif_npm"
    [ -f "$sarif_npm/package.json" ] || echo '{ "name": "vcc-sarif-tools", "private": true }' > "$sarif_npm/package.json"
    npm install --prefix "$sarif_npm" --no-audit --no-fund --loglevel=error "@microsoft/sarif-multitool@$SARIF_MULTITOOL"
fi

ajv_npm="$tools/ajv-npm"
installed=$(node -p "try { require('$ajv_npm/node_modules/ajv-cli/package.json').version } catch { '' }" 2>/dev/null || true)
if [ "$installed" != "$AJV_CLI" ]; then
    echo "installing ajv-cli $AJV_CLI into $ajv_npm" >&2
    mkdir -p "$ajv_npm"
    [ -f "$ajv_npm/package.json" ] || echo '{ "name": "vcc-ajv", "private": true }' > "$ajv_npm/package.json"
    npm install --prefix "$ajv_npm" --no-audit --no-fund --loglevel=error "ajv-cli@$AJV_CLI"
fi

mcp_npm="$tools/mcp-npm"
installed=$(node -p "try { require('$mcp_npm/node_modules/@modelcontextprotocol/sdk/package.json').version } catch { '' }" 2>/dev/null || true)
if [ "$installed" != "$MCP_SDK_NPM" ]; then
    echo "installing @modelcontextprotocol/sdk $MCP_SDK_NPM into $mcp_npm" >&2
    mkdir -p "$mcp_npm"
    [ -f "$mcp_npm/package.json" ] || echo '{ "name": "vcc-mcp-client", "private": true }' > "$mcp_npm/package.json"
    npm install --prefix "$mcp_npm" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/sdk@$MCP_SDK_NPM"
fi

# Opt-in (VCC_INSTALL_LLAMA=1): building llama.cpp takes ~7 minutes on 2
# cores, which a clean CI run cannot afford (it measured 69 min with it on
# 2026-11-26, over the 60-minute budget). Without it the local-engine smoke
# test says SKIPPED; the scripted judges still test every behaviour.
llama_py="$tools/llama-py"
if [ "${VCC_INSTALL_LLAMA:-0}" = 1 ] && ! "$llama_py/bin/python" -c "import importlib.metadata as m, sys, llama_cpp.server; sys.exit(m.version('llama_cpp_python') != '$LLAMA_CPP_PYTHON' or m.version('gguf') != '$GGUF')" 2>/dev/null; then
    echo "building llama-cpp-python $LLAMA_CPP_PYTHON (llama.cpp, a few minutes) and installing gguf $GGUF into $llama_py" >&2
    rm -rf "$llama_py"
    python3 -m venv "$llama_py"
    # Generic CPU code (the build machine's may differ from the test
    # machine's), and only the library: no tests, examples or tools.
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_CURL=OFF" \
        "$llama_py/bin/pip" install --quiet --disable-pip-version-check \
        "llama-cpp-python[server]==$LLAMA_CPP_PYTHON" "gguf==$GGUF"
fi

# The markdown differential's reference (tests/differential/markdown):
# markdown-it-py in its CommonMark preset, pinned.
MARKDOWN_IT_PY=4.0.0
MDURL=0.1.2
diff_md_py="$tools/diff-md-py"
if ! "$diff_md_py/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('markdown-it-py') != '$MARKDOWN_IT_PY' or m.version('mdurl') != '$MDURL')" 2>/dev/null; then
    echo "installing markdown-it-py $MARKDOWN_IT_PY into $diff_md_py" >&2
    rm -rf "$diff_md_py"
    python3 -m venv "$diff_md_py"
    "$diff_md_py/bin/pip" install --quiet --disable-pip-version-check "markdown-it-py==$MARKDOWN_IT_PY" "mdurl==$MDURL"
fi

# The data differentials (issue 34 classes 5 and 7): coverage.py makes the
# coverage reports std/coverage is compared with, pandas reads the CSVs
# std/json-schema is compared with.
DIFF_COVERAGE=7.10.7
DIFF_PANDAS=2.3.3
diff_data_py="$tools/diff-data-py"
if ! "$diff_data_py/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('coverage') != '$DIFF_COVERAGE' or m.version('pandas') != '$DIFF_PANDAS')" 2>/dev/null; then
    echo "installing coverage $DIFF_COVERAGE and pandas $DIFF_PANDAS into $diff_data_py" >&2
    rm -rf "$diff_data_py"
    python3 -m venv "$diff_data_py"
    "$diff_data_py/bin/pip" install --quiet --disable-pip-version-check "coverage==$DIFF_COVERAGE" "pandas==$DIFF_PANDAS"
fi

# The trace-matrix and JSON-evidence differentials' references (issue 34,
# classes 4 and 9): Python's own `ast` reads Python definitions;
# markdown-it-py (CommonMark) reads documents' headings and HTML anchors;
# tree-sitter grammars read Rust, JavaScript/TypeScript and Go (no Go or
# TypeScript toolchain is installed; tree-sitter is what editors and
# GitHub's code navigation use); PyYAML reads the cases' contracts.
DIFF_TRACE_MARKDOWN_IT=4.3.0
DIFF_TRACE_TREE_SITTER=0.26.1
DIFF_TRACE_TS_RUST=0.24.2
DIFF_TRACE_TS_JS=0.25.0
DIFF_TRACE_TS_TS=0.23.2
DIFF_TRACE_TS_GO=0.25.0
DIFF_TRACE_PYYAML=6.0.2
diff_trace_py="$tools/diff-trace-py"
if ! "$diff_trace_py/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('markdown-it-py') != '$DIFF_TRACE_MARKDOWN_IT' or m.version('tree-sitter') != '$DIFF_TRACE_TREE_SITTER' or m.version('tree-sitter-rust') != '$DIFF_TRACE_TS_RUST' or m.version('tree-sitter-javascript') != '$DIFF_TRACE_TS_JS' or m.version('tree-sitter-typescript') != '$DIFF_TRACE_TS_TS' or m.version('tree-sitter-go') != '$DIFF_TRACE_TS_GO' or m.version('PyYAML') != '$DIFF_TRACE_PYYAML')" 2>/dev/null; then
    echo "installing the trace differential's references into $diff_trace_py" >&2
    rm -rf "$diff_trace_py"
    python3 -m venv "$diff_trace_py"
    "$diff_trace_py/bin/pip" install --quiet --disable-pip-version-check \
        "markdown-it-py==$DIFF_TRACE_MARKDOWN_IT" "tree-sitter==$DIFF_TRACE_TREE_SITTER" \
        "tree-sitter-rust==$DIFF_TRACE_TS_RUST" "tree-sitter-javascript==$DIFF_TRACE_TS_JS" \
        "tree-sitter-typescript==$DIFF_TRACE_TS_TS" "tree-sitter-go==$DIFF_TRACE_TS_GO" \
        "PyYAML==$DIFF_TRACE_PYYAML"
fi

# The JUnit XML differential's reference (tests/differential/junit-xml,
# issue 34): junitparser over lxml, as a user's script reads a report
# (without lxml junitparser falls back to ElementTree: pinned both).
DIFF_XML_JUNITPARSER=5.0.3
DIFF_XML_LXML=6.1.3
diff_xml_py="$tools/diff-xml-py"
if ! "$diff_xml_py/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('junitparser') != '$DIFF_XML_JUNITPARSER' or m.version('lxml') != '$DIFF_XML_LXML')" 2>/dev/null; then
    echo "installing the junit-xml differential's references into $diff_xml_py" >&2
    rm -rf "$diff_xml_py"
    python3 -m venv "$diff_xml_py"
    "$diff_xml_py/bin/pip" install --quiet --disable-pip-version-check \
        "junitparser==$DIFF_XML_JUNITPARSER" "lxml==$DIFF_XML_LXML"
fi

echo "test tools ready" >&2
