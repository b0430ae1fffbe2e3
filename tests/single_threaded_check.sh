#!/bin/sh
# Checks tests/single_threaded_tests.txt: each binary listed exists and, run whole under
# strace, makes no clone, clone3, fork or vfork (no thread, no process). The ThreadSanitizer
# build leaves those binaries out, so a listed test that starts a thread would lose its
# race checks: this test fails instead.
#   tests/single_threaded_check.sh LIST BIN_DIR
# Exit 77 (skipped) without strace, or 1 under CI=true (install-deps.sh --test installs
# it); 77 too where this machine forbids ptrace (a container's seccomp or Yama policy).
set -eu
list=$1
bin_dir=$2
"$(dirname "$0")/require_tools.sh" single_threaded_tests strace || exit $?
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! strace -f -qq -o "$work/probe" true 2>"$work/probe.err"; then
  echo "single_threaded_tests: SKIP: strace cannot trace here: $(cat "$work/probe.err")"
  exit 77
fi
failed=0
checked=0
grep -v '^#' "$list" >"$work/names"
while read -r name; do
  binary="$bin_dir/$name"
  if [ ! -x "$binary" ]; then
    echo "FAIL: $name is listed but $binary was not built"
    failed=1
    continue
  fi
  if ! strace -f -qq -e trace=clone,clone3,fork,vfork -o "$work/$name.trace" \
       "$binary" </dev/null >"$work/$name.out" 2>&1; then
    echo "FAIL: $name failed under strace:"
    tail -20 "$work/$name.out"
    failed=1
    continue
  fi
  if [ -s "$work/$name.trace" ]; then
    echo "FAIL: $name starts a thread or a process; take it off $list:"
    head -5 "$work/$name.trace"
    failed=1
  else
    checked=$((checked + 1))
  fi
done <"$work/names"
echo "single_threaded_tests: $checked listed binaries start no thread or process"
exit $failed
