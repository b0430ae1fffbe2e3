#!/usr/bin/env bash
# shellcheck disable=SC2016  # the sh -c scripts take their paths as "$1"... on purpose
# A repo the exporter cannot see is not a repo that is gone (issue "Fidelity II",
# item 1). m1nd names an owner's brain after its first ingest root when that root is an
# existing directory on m1nd's host; a sandbox that hides the homes (ProtectHome=tmpfs,
# a pod that mounts only the m1nd folder) must not make the exporter fall through to
# the workspace_root, name the brain after it and page on a healthy brain.
#
# One registry owner, laid out the way m1nd writes it: ingest root T/home/u/m1nd (the
# repo), runtime root T/var/m1nd-rt holding ingest_roots.json and a store of
# sk_m1nd_candidate, and an instance whose workspace_root is the runtime root, so that
# m1nd's rule 2 would name the brain m1nd_rt. `--once` four times:
#   1. visible          the repo is there: ok, expected m1nd, exit 0
#   2. hidden           a tmpfs over T/home in a private mount namespace: identity
#                       unknown, no mismatch anywhere, exit 0
#   3. hidden+scaffold  the same with T/home/u made again on the tmpfs (a container's
#                       scaffold folder): the same
#   4. hidden+m1nd-seen
#                       hidden as in 2, but the registry entry names a live process
#                       outside the namespace (this script's shell, standing for m1nd):
#                       the exporter looks the repo up through /proc/<pid>/root, in
#                       m1nd's own view, and finds it: ok, expected m1nd, exit 0
#   5. deleted          the repo removed for real: m1nd itself falls back to rule 2, so
#                       the exporter must too: mismatch (expected m1nd_rt), exit 1
#
# Usage: visibility_namespace_test.sh EXPORTER_BINARY [WORK_PARENT]
# WORK_PARENT is where the layout goes (the build folder from CMake); it must not be
# on a tmpfs, where a deleted repo could not be told from a hidden one. Exit 77
# (skipped) when not root or when mount namespaces or tmpfs mounts are not allowed.
set -euo pipefail

exporter=$(realpath "$1")
parents=("${2:-}" "${TMPDIR:-}" /var/tmp /tmp)

if [ "$(id -u)" -ne 0 ]; then
  echo "not root: skipped (a private mount namespace needs CAP_SYS_ADMIN)"
  exit 77
fi
if ! unshare -m true 2>/dev/null; then
  echo "unshare -m is not allowed here: skipped"
  exit 77
fi

work_parent=""
for candidate in "${parents[@]}"; do
  if [ -n "$candidate" ] && [ -d "$candidate" ] &&
     [ "$(stat -f -c %T "$candidate")" != tmpfs ]; then
    work_parent=$candidate
    break
  fi
done
if [ -z "$work_parent" ]; then
  echo "no folder off tmpfs for the layout (tried ${parents[*]}): skipped"
  exit 77
fi

T=$(mktemp -d "$work_parent/visibility_namespace.XXXXXX")
T=$(realpath "$T")
trap 'rm -rf "$T"' EXIT

# The layout, as m1nd writes it. T/home/u is a home with more in it than the repo.
mkdir -p "$T/home/u/m1nd" "$T/var/m1nd-rt" "$T/var/registry/instances"
: > "$T/home/u/.profile"
python3 - "$T" <<'PY'
import json, pathlib, sys
t = pathlib.Path(sys.argv[1])
runtime = t / "var" / "m1nd-rt"
repo = t / "home" / "u" / "m1nd"
(runtime / "ingest_roots.json").write_text(json.dumps([str(repo)]) + "\n")
(runtime / "system_blocks.json").write_text(json.dumps({
    "schema": "m1nd-system-block-store-v0",
    "store_version": 3,
    "skeleton": {"skeleton_id": "sk_m1nd_candidate", "version": 1, "state": "candidate",
                 "ratification": {"method": "", "ratifier": "", "ratified_at": "",
                                  "commit": ""}},
    "blocks": [{"block_id": "sb_m1nd_core_0a1b2c3d", "name": "Core"}],
    "unmapped_policy": {"visible": True,
                        "default_action": "leave_unmapped_until_ratified"},
}, indent=2) + "\n")
instance_id = "inst_0a1b2c3d4e5f"
(t / "var" / "registry" / "instances" / f"{instance_id}.json").write_text(json.dumps({
    "instance_id": instance_id,
    "workspace_root": str(runtime),
    "runtime_root": str(runtime),
    "graph_source": str(runtime / "graph_snapshot.json"),
    "plasticity_state": str(runtime / "plasticity_state.json"),
    "pid": 4242,
    "bind": None,
    "port": None,
    "started_at_ms": 1767484800000,
    "last_heartbeat_ms": 1767488400000,
    "mode": "read_write",
    "status": "running",
    "brain_kind": None,
}, indent=2) + "\n")
(t / "config.yml").write_text(
    "m1nd_registries: [" + json.dumps(str(t / "var" / "registry")) + "]\n"
    "runtime_globs: []\n")
PY
config="$T/config.yml"

# A tmpfs mount must work inside the namespace too (AppArmor or seccomp may forbid it).
if ! unshare -m --propagation private sh -c 'mount -t tmpfs tmpfs "$1"' sh "$T/home" \
     2>/dev/null; then
  echo "mount -t tmpfs is not allowed in a private mount namespace: skipped"
  exit 77
fi

failures=0

# check CASE EXPECTED_RC RC OUTPUT_FILE EXPECTATION: EXPECTATION is "ok", "unknown" or
# "mismatch"; prints one line for the case and counts a failure.
check() {
  local name=$1 want_rc=$2 rc=$3 out=$4 expect=$5 verdict
  if verdict=$(python3 - "$out" "$expect" <<'PY'
import json, sys
out, expect = sys.argv[1], sys.argv[2]
text = open(out).read()
try:
    brains = json.loads(text)["brains"]
except (ValueError, KeyError, TypeError) as error:
    sys.exit(f"output is not the --once JSON ({error})")
if len(brains) != 1:
    sys.exit(f"{len(brains)} brains, expected 1")
brain = brains[0]
coherence = brain.get("skeleton_coherence")
summary = (f"brain {brain.get('brain')}, identity_source {brain.get('identity_source')}, "
           f"state {brain.get('state', '(none)')}, skeleton_coherence "
           + (json.dumps({k: coherence.get(k) for k in ('status', 'expected_slug')})
              if isinstance(coherence, dict) else json.dumps(coherence)))
problems = []
if expect == "ok":
    if not isinstance(coherence, dict) or coherence.get("status") != "ok" \
            or coherence.get("expected_slug") != "m1nd":
        problems.append("expected an ok verdict with expected_slug m1nd")
    # --once names the state once the engine reports identity_unknown; before, only
    # the verdict says it.
    if brain.get("state", "ok") != "ok":
        problems.append("expected state ok")
elif expect == "unknown":
    if '"status": "mismatch"' in text or "mismatch" in json.dumps(coherence):
        problems.append("a mismatch is reported")
    if brain.get("state") != "identity_unknown":
        problems.append("expected state identity_unknown")
    if coherence is not None:
        problems.append("expected skeleton_coherence null")
    if brain.get("identity_source") != "unknown":
        problems.append("expected identity_source unknown")
elif expect == "mismatch":
    if not isinstance(coherence, dict) or coherence.get("status") != "mismatch" \
            or coherence.get("expected_slug") != "m1nd_rt":
        problems.append("expected a mismatch with expected_slug m1nd_rt (m1nd's rule 2)")
    if brain.get("identity_source") != "workspace_root":
        problems.append("expected identity_source workspace_root")
print(summary + ("" if not problems else ": " + "; ".join(problems)))
sys.exit(1 if problems else 0)
PY
  ) && [ "$rc" -eq "$want_rc" ]; then
    echo "PASS $name: exit $rc, $verdict"
  else
    echo "FAIL $name: exit $rc (want $want_rc), $verdict"
    sed 's/^/    stderr: /' "$out.err" | head -n 20
    failures=$((failures + 1))
  fi
}

# run CASE EXPECTED_RC EXPECTATION [SETUP]: runs --once, in a private mount namespace
# after SETUP (a shell command; $1 is T) when SETUP is given.
run() {
  local name=$1 want_rc=$2 expect=$3 setup=${4:-} rc=0 out="$T/$1.out"
  if [ -n "$setup" ]; then
    unshare -m --propagation private sh -c "$setup"' && exec "$2" --config.file="$3" --once' \
      sh "$T" "$exporter" "$config" >"$out" 2>"$out.err" || rc=$?
  else
    "$exporter" --config.file="$config" --once >"$out" 2>"$out.err" || rc=$?
  fi
  check "$name" "$want_rc" "$rc" "$out" "$expect"
}

# name_process PID: the registry entry names the process PID, started now.
name_process() {
  python3 - "$T" "$1" <<'PY'
import json, pathlib, sys, time
path = pathlib.Path(sys.argv[1]) / "var" / "registry" / "instances" / "inst_0a1b2c3d4e5f.json"
entry = json.loads(path.read_text())
entry["pid"] = int(sys.argv[2])
entry["started_at_ms"] = int(time.time() * 1000)
path.write_text(json.dumps(entry, indent=2) + "\n")
PY
}

run visible 0 ok
run hidden 0 unknown 'mount -t tmpfs tmpfs "$1/home"'
run hidden+scaffold 0 unknown 'mount -t tmpfs tmpfs "$1/home" && mkdir -p "$1/home/u"'
name_process $$
run hidden+m1nd-seen 0 ok 'mount -t tmpfs tmpfs "$1/home"'
rmdir "$T/home/u/m1nd"
run deleted 1 mismatch

if [ "$failures" -ne 0 ]; then
  echo "$failures of 5 cases failed"
  exit 1
fi
echo "all 5 cases passed"
