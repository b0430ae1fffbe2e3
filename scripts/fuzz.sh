#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for SECONDS (default 60), two
# at a time: scripts/fuzz.sh [--build-dir DIR] [SECONDS [TARGET...]]
#
# Without --build-dir it configures build-fuzz/ (clang, ASan+UBSan, SCX_FUZZ) and builds
# only what the targets need. With it, DIR is a build already configured with SCX_FUZZ=ON
# (scripts/test.sh passes its ASan build, where the targets are built with the tests).
# Each run starts from the committed seeds (fuzz/corpus/<target>) and keeps what it
# finds in DIR/corpus/<target>, so later runs go on from there. A crash stops the
# script with its input in DIR/crashes/<target>/; copy that file into
# fuzz/regressions/<target>/ and fix the bug: the replay test then keeps it fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=""
if [ "${1:-}" = "--build-dir" ]; then
  build_dir="$2"
  shift 2
fi
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(store_parser slug_verdict config web_config instance_record project_manifest
           ingest_roots)
fi

configure=()
if [ -z "$build_dir" ]; then
  build_dir=build-fuzz
  configure=(cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo
             -DCMAKE_CXX_COMPILER=clang++ -DSCX_SANITIZE=ON -DSCX_FUZZ=ON
             -DSCX_BUILD_TESTS=OFF -DSCX_BUILD_BENCH=OFF)
  if command -v ccache >/dev/null; then configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
fi
mkdir -p "$build_dir"
build_log="$build_dir/fuzz-build.log"
if ! { { [ ${#configure[@]} -eq 0 ] || "${configure[@]}"; } &&
       cmake --build "$build_dir" -j2 --target "${targets[@]/#/fuzz_}"; } >"$build_log" 2>&1; then
  tail -40 "$build_log" >&2
  echo "fuzz: the build failed ($build_log)" >&2
  exit 1
fi

run_one() {
  local target="$1" corpus="$build_dir/corpus/$1" crashes="$build_dir/crashes/$1/"
  mkdir -p "$corpus" "$crashes"
  if "$build_dir/bin/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$crashes" "$corpus" "fuzz/corpus/$target" \
       >"$build_dir/$target.log" 2>&1; then
    echo "fuzz_$target: $(grep -E '^stat::number_of_executed_units' "$build_dir/$target.log" |
      awk '{print $2}') runs in ${seconds} s, no crash"
  else
    echo "fuzz_$target: CRASH, see $build_dir/$target.log and $crashes" >&2
    tail -30 "$build_dir/$target.log" >&2
    return 1
  fi
}

status=0
pids=()
for target in "${targets[@]}"; do
  run_one "$target" &
  pids+=($!)
  if [ ${#pids[@]} -eq 2 ]; then
    for pid in "${pids[@]}"; do wait "$pid" || status=1; done
    pids=()
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
