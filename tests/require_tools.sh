#!/bin/sh
# What a shell test does when a tool it needs is not installed, as tests/missing_tool.py
# for the Python ones: exits 0 when every TOOL is on PATH; else says which is missing
# and exits 77 (ctest's skip) on a developer's machine, or 1 under CI=true, where
# ./scripts/install-deps.sh --test has installed every tool and a skip would pass a
# test that never ran.
#   tests/require_tools.sh TEST TOOL...
test_name=$1
shift
for tool in "$@"; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    if [ "${CI:-}" = true ]; then
      echo "$test_name: FAIL: $tool is not installed (CI=true: ./scripts/install-deps.sh --test installs it)"
      exit 1
    fi
    echo "$test_name: SKIP: $tool is not installed (./scripts/install-deps.sh --test)"
    exit 77
  fi
done
exit 0
