#!/usr/bin/env bash
# Validates every manifest in deploy/kubernetes/ against the Kubernetes API schema and
# the Prometheus Operator CRD schemas, from the npm packages pinned in
# kubernetes-schema/package-lock.json (installed once into the build folder with
# `npm ci`). There is no cluster here: this is the schema check, not a dry run.
# Usage: kubernetes_schema_test.sh BUILD_DIR SOURCE_DIR. Exit 77 (skipped) without npm.
set -euo pipefail
build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
here="$source_dir/tests/deploy/kubernetes-schema"

# node and npm are the one tool the suite uses that scripts/install-deps.sh does not
# install (Debian's npm would conflict with the nodejs a machine may already have):
# without them this test skips, under CI too.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "node or npm not found: skipped"
  exit 77
fi

modules="$build_dir/kubernetes-schema"
if ! cmp -s "$here/package-lock.json" "$modules/package-lock.json" 2>/dev/null ||
   [ ! -d "$modules/node_modules" ]; then
  rm -rf "$modules"
  mkdir -p "$modules"
  cp "$here/package.json" "$here/package-lock.json" "$modules/"
  (cd "$modules" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false >/dev/null)
fi
cp "$here/validate.mjs" "$modules/"

# YAML -> JSON with Debian's python3-yaml; the kustomization is not an API object.
/usr/bin/python3 - "$source_dir/deploy/kubernetes" <<'PY' | node "$modules/validate.mjs"
import json, pathlib, sys, yaml
entries = []
for path in sorted(pathlib.Path(sys.argv[1]).glob("*.y*ml")):
    if path.name == "kustomization.yaml":
        continue
    for document in yaml.safe_load_all(path.read_text()):
        if document is not None:
            entries.append({"file": path.name, "document": document})
json.dump(entries, sys.stdout)
PY
