#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (build-fuzz/, only what they need) and runs
# each for SECONDS (default 60), two at a time: scripts/fuzz.sh [SECONDS [TARGET...]]
#
# Each run starts from the committed seeds (fuzz/corpus/<target>) and keeps what it
# finds in build-fuzz/corpus/<target>, so later runs go on from there. A crash stops
# the script with its input in build-fuzz/crashes/<target>/; copy that file into
# fuzz/regressions/<target>/ and fix the bug: the replay test then keeps it fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(store_parser slug_verdict config web_config instance_record project_manifest
           ingest_roots)
fi

launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
mkdir -p build-fuzz
if ! { cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
         -DSCX_FUZZ=ON "${launcher[@]}" &&
       cmake --build build-fuzz -j2 --target "${targets[@]/#/fuzz_}"; } >build-fuzz/build.log 2>&1; then
  tail -40 build-fuzz/build.log >&2
  echo "fuzz: the build failed (build-fuzz/build.log)" >&2
  exit 1
fi

run_one() {
  local target="$1" corpus="build-fuzz/corpus/$1" crashes="build-fuzz/crashes/$1/"
  mkdir -p "$corpus" "$crashes"
  if build-fuzz/bin/"fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$crashes" "$corpus" "fuzz/corpus/$target" \
       >"build-fuzz/$target.log" 2>&1; then
    echo "fuzz_$target: $(grep -E '^stat::number_of_executed_units' "build-fuzz/$target.log" |
      awk '{print $2}') runs in ${seconds} s, no crash"
  else
    echo "fuzz_$target: CRASH, see build-fuzz/$target.log and $crashes" >&2
    tail -30 "build-fuzz/$target.log" >&2
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
