#!/usr/bin/env bash
# Every test: installs what is missing, checks formatting, builds, runs clang-tidy on
# the exporter's code (scripts/tidy.sh, in the background at idle priority while the
# stages below run; the shell, Python and .editorconfig checks of scripts/lint.sh are
# the ctest test "lint") and the whole suite (unit, integration,
# promtool, end-to-end), then the unit and integration tests again under
# AddressSanitizer + UndefinedBehaviorSanitizer and under ThreadSanitizer, and fuzzes
# each parser for 20 s (scripts/fuzz.sh).
# Warnings are errors in every build here (SCX_WERROR). Three builds: the normal one
# (gcc); ASan + UBSan with clang, which also checks the lock annotations
# (-Wthread-safety) and builds the libFuzzer targets on the same objects; TSan (gcc),
# without the test binaries that start no thread or process
# (tests/single_threaded_tests.txt, checked under strace by the normal build's suite).
# The sanitizer builds keep line tables only (-g1: reports still name files and
# lines); ASan compiles at -O1, a fifth faster than -O2 (the test files' own code at
# -O0: tests/CMakeLists.txt). TSan stays at -O2: it hooks
# every function entry, and at -O1 (less inlining) a YAML walk ran 45x slower.
set -euo pipefail
cd "$(dirname "$0")/.."
# Every tool the tests use is installed below, so a test that cannot find its tool
# fails instead of skipping (CI=true: tests/missing_tool.py, tests/test_process.h).
export CI="${CI:-true}"
# Each stage's heading says when it starts, in seconds since this script began, so that
# a run's log gives the time of every stage (CI's budget is 20 minutes).
stage() { echo "== $* == (at ${SECONDS} s)"; }
stage "install what is missing"
./scripts/install-deps.sh --test  # --test: also GoogleTest, clang, Prometheus, Chromium, ...

stage "clang-format"
mapfile -t sources < <(git ls-files '*.h' '*.cc' 2>/dev/null || find base engine exporter tests bench fuzz -name '*.h' -o -name '*.cc')
clang-format --dry-run -Werror "${sources[@]}"

stage "build (RelWithDebInfo)"
# Line tables only (-g1), as in the sanitizer builds: a third less compile time than -g,
# and reports and backtraces still name files and lines.
./scripts/build.sh build -DSCX_WERROR=ON "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
# Two stages run in the background at idle priority (SCHED_IDLE: the scheduler gives
# them a CPU only when no other task of the machine wants one), on what the others
# leave idle, so that those run as fast as without them, their timing bounds included:
# clang-tidy from the end of the normal build, and the fuzzers beside the flood test
# (below). They stay in this session: the kernel shares the CPU between sessions first
# (autogroups), so in a session of its own (setsid) clang-tidy took a full core from
# the ASan build. Each is in a process group of its own (job control, set -m), so that
# a failing stage stops it too.
idle_priority=(nice -n 19)
if chrt --idle 0 true 2>/dev/null; then idle_priority=(chrt --idle 0); fi
background_groups=()  # of the background stages still running
stop_background() {
  local group
  for group in "${background_groups[@]}"; do kill -- -"$group" 2>/dev/null || true; done
}
trap stop_background EXIT
# start_in_background LOG COMMAND...: COMMAND at idle priority, its output in LOG; its
# process id in background_pid.
start_in_background() {
  local log="$1"
  shift
  set -m
  "${idle_priority[@]}" "$@" >"$log" 2>&1 &
  background_pid=$!
  set +m
  background_groups+=("$background_pid")
}
# finish_background PID LOG WHAT: waits for it, prints its output, fails if it failed.
finish_background() {
  local status=0 group running=()
  wait "$1" || status=$?
  for group in "${background_groups[@]}"; do
    if [ "$group" != "$1" ]; then running+=("$group"); fi
  done
  background_groups=("${running[@]}")
  cat "$2"
  if [ "$status" -ne 0 ]; then
    echo "test.sh: $3 failed (exit status $status, log: $2)" >&2
    exit 1
  fi
}

# clang-tidy (.clang-tidy, the exporter's own code) needs only the build's compile
# database, and about 270 CPU seconds; the links, the tests' waits on timers and
# servers leave room for it. Its result is checked after the tests.
stage "clang-tidy starts, in the background at idle priority (result after the tests)"
start_in_background build/tidy.log ./scripts/tidy.sh build '^(base|engine|exporter|tools)/'
tidy_pid=$background_pid
# The sanitizer builds link with lld (a third of ld's time on a test binary); what
# ships is linked as a user's build links it, by the normal build above.
sanitizer_build=(-DSCX_WERROR=ON -DSCX_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=None
                 -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld)
stage "build (clang: ASan + UBSan, -Wthread-safety, libFuzzer targets)"
./scripts/build.sh build-asan "${sanitizer_build[@]}" -DSCX_SANITIZE=ON -DSCX_FUZZ=ON \
  -DCMAKE_CXX_COMPILER=clang++ "-DCMAKE_CXX_FLAGS=-O1 -g1 -DNDEBUG -Wthread-safety"
stage "build (ThreadSanitizer)"
./scripts/build.sh build-tsan "${sanitizer_build[@]}" -DSCX_TSAN=ON "-DCMAKE_CXX_FLAGS=-O2 -g1 -DNDEBUG"

# The sanitizer builds run the compiled code's tests. Not again there: the end-to-end
# and alerting tests (promtool, amtool, Prometheus: nothing of ours is compiled
# differently), lint, deploy and the benchmarks; nor the flood attacks under ASan
# (ThreadSanitizer runs them, for the races between civetweb and the connection guard).
sanitizer_skip='e2e|alerting|lint|deploy|bench'
stage "tests under ASan + UBSan (end-to-end runs once, below)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j2 --label-exclude "$sanitizer_skip" \
    -E exporter_flood_attack_test

stage "tests under ThreadSanitizer (end-to-end runs once, below)"
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/tsan.supp" \
  ctest --test-dir build-tsan --output-on-failure -j2 --label-exclude "$sanitizer_skip"

# The flood test runs alone (RUN_SERIAL: it bounds the scrapes' latency) and keeps one
# core busy at most: it runs last, with the fuzzers beside it.
flood_test='^exporter_flood_attack_test$'
# Three at a time on two cores: the suite mostly waits (Prometheus' and Alertmanager's
# intervals, alert windows, scans), 117 CPU seconds in 204 s at -j2; -j3 takes 136 s,
# about e2e_alerting's own 130 s, which starts first.
stage "all tests (the flood test below)"
ctest --test-dir build --output-on-failure -j3 -E "$flood_test"

stage "clang-tidy (started after the build)"
finish_background "$tidy_pid" build/tidy.log clang-tidy

# Each parser's libFuzzer target for 20 s, two at a time (scripts/fuzz.sh), at idle
# priority while the flood test runs, then on both cores.
stage "the flood test, and the fuzzers beside it (libFuzzer, 20 s per target)"
start_in_background build-asan/fuzz-run.log ./scripts/fuzz.sh --build-dir build-asan 20
fuzz_pid=$background_pid
ctest --test-dir build --output-on-failure -R "$flood_test"
finish_background "$fuzz_pid" build-asan/fuzz-run.log fuzzing

stage "done"
