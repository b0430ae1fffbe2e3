#!/usr/bin/env bash
# Runs clang-tidy (checks in .clang-tidy) on the project's C++ files of a configured
# build folder, two at a time, and fails on any finding:
#   scripts/tidy.sh BUILD_DIR [PATH_REGEX]
# BUILD_DIR needs compile_commands.json (the top CMakeLists.txt always writes it): a
# configure is enough, no build; the generated build_info.h is written first.
# PATH_REGEX (extended regex on the path from the repository root, default
# '^(base|engine|exporter|tools|tests|bench|fuzz)/') picks the files, e.g. '^engine/'.
# Prints each finding, their count by check and the time taken; exits 1 on a finding.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -d "$1" ]; then
  echo "usage: scripts/tidy.sh BUILD_DIR [PATH_REGEX]" >&2
  exit 2
fi
build_dir="$(cd "$1" && pwd)"
cd "$(dirname "$0")/.."
path_regex="${2:-^(base|engine|exporter|tools|tests|bench|fuzz)/}"
clang_tidy="${CLANG_TIDY:-clang-tidy}"
database="$build_dir/compile_commands.json"
if [ ! -f "$database" ]; then
  echo "tidy: no $database: configure first (cmake -S . -B BUILD_DIR)" >&2
  exit 2
fi
if ! command -v "$clang_tidy" >/dev/null; then
  echo "tidy: $clang_tidy is not installed: apt-get install clang-tidy" >&2
  exit 2
fi
start=$SECONDS
# service.cc and main.cc include the build_info.h a build writes.
cmake --build "$build_dir" --target scx_build_info >/dev/null

# The database's files (each once) under this checkout, as paths from its root.
mapfile -t files < <(python3 - "$database" "$PWD" <<'PY'
import json, os, sys
root = os.path.realpath(sys.argv[2])
seen = set()
for entry in json.load(open(sys.argv[1])):
    path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    if path.startswith(root + os.sep):
        seen.add(os.path.relpath(path, root))
print("\n".join(sorted(seen)))
PY
)
mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -E "$path_regex" || true)
if [ ${#files[@]} -eq 0 ]; then
  echo "tidy: no file of $database matches $path_regex" >&2
  exit 2
fi

echo "== clang-tidy ($("$clang_tidy" --version | grep -o 'version [0-9.]*'), ${#files[@]} files, 2 jobs) =="
output="$(mktemp)"
database_dir="$(mktemp -d)"
trap 'rm -rf "$output" "$database_dir"' EXIT
# The test files are compiled with a precompiled header (tests/CMakeLists.txt,
# scx_test_pch) that clang cannot read when GCC made it: clang-tidy gets the database
# without it, and each file is checked with the includes it names itself.
python3 - "$database" "$database_dir/compile_commands.json" <<'PY'
import json, re, sys
entries = json.load(open(sys.argv[1]))
for entry in entries:
    entry["command"] = re.sub(r" -include \S*cmake_pch\.hxx|( -Xclang -include-pch -Xclang \S+| -Xclang -include -Xclang \S*cmake_pch\.hxx)",
                              "", entry["command"])
json.dump(entries, open(sys.argv[2], "w"))
PY
status=0
# Each file's output is printed whole, so the two jobs' findings do not interleave;
# clang's "N warnings generated." lines (the checks it did not report) are dropped.
# The script of sh -c is single-quoted: its "$0", "$1", "$2" are its own arguments.
# shellcheck disable=SC2016
printf '%s\0' "${files[@]}" | xargs -0 -n 1 -P 2 sh -c '
  out="$("$0" -p "$1" --quiet --warnings-as-errors="*" "$2" 2>&1)"; rc=$?
  printf "%s\n" "$out" | grep -Ev "^[0-9]+ (warning|error)s? (and [0-9]+ (warning|error)s? )?generated\.$" || true
  exit "$rc"' "$clang_tidy" "$database_dir" | tee "$output" || status=1

# A header's finding shows once per file that includes it: counted once.
findings="$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error): .* \[[^]]+\]$' "$output" | sort -u || true)"
count=0
if [ -n "$findings" ]; then
  count=$(printf '%s\n' "$findings" | wc -l)
  echo "== findings by check =="
  printf '%s\n' "$findings" | sed -E 's/.*\[([^],]+)(,[^]]*)?\]$/\1/' | sort | uniq -c | sort -rn
fi
echo "tidy: $count findings in ${#files[@]} files, $((SECONDS - start)) s"
if [ "$status" -ne 0 ] || [ "$count" -ne 0 ]; then
  exit 1
fi
