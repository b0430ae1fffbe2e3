#!/usr/bin/env bash
# The OCI image of scripts/build-image.sh, built from the build tree's binary into a
# temporary folder: its last output line names the archive; the archive is an OCI
# layout tagged skeleton-coherence-exporter:VERSION whose config runs the exporter as
# 65534:65534 with org.opencontainers.image.* labels naming no host. Its layers are
# unpacked in order into a root, which must hold the binary (stripped), its libraries
# and no shell, and the entrypoint is run there with chroot as 65534:65534: --version,
# --once over a copy of examples/ (exit 1: the m1nd brain is a mismatch), and serving
# that copy until /-/ready and /metrics answer (without /proc in the root the process
# metrics are missing: a container runtime mounts it). The DaemonSet runs the name the
# image is tagged with.
# Usage: image_test.sh BUILD_DIR SOURCE_DIR. Exit 77 (skip) when not root; a missing
# tool skips too, except under CI=true, where it fails.
set -euo pipefail
build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
name=skeleton-coherence-exporter
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/CMakeCache.txt")
binary="$build_dir/bin/$name"
started=$SECONDS

if [ "$(id -u)" -ne 0 ]; then
  echo "SKIP: buildah's vfs storage and chroot need root"
  exit 77
fi
"$source_dir/tests/require_tools.sh" oci_image buildah python3 chroot || exit $?

work=$(mktemp -d "$build_dir/image-test.XXXXXX")
pid=""
trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

echo "== scripts/build-image.sh --binary $binary =="
"$source_dir/scripts/build-image.sh" --binary "$binary" "$work/out" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; fail "build-image.sh"; }
cat "$work/build.log"
archive=$(tail -n 1 "$work/build.log")
[ "$archive" = "$work/out/$name-$version.oci.tar" ] || fail "last line is not the archive: $archive"
[ -f "$archive" ] || fail "no $archive"
grep -q "^ *image: $name:$version\$" "$source_dir/deploy/kubernetes/daemonset.yml" ||
  fail "deploy/kubernetes/daemonset.yml does not run $name:$version, the name the script tags"
leftover=$(find "$work/out" -mindepth 1 -not -path "$archive")
[ -z "$leftover" ] || fail "build-image.sh left behind: $leftover"
build_seconds=$((SECONDS - started))

echo "== the OCI layout: index, manifest, config, layers =="
mkdir "$work/oci" "$work/root"
tar -xf "$archive" -C "$work/oci"
python3 - "$work/oci" "$name" "$version" >"$work/layers" <<'EOF'
import json
import pathlib
import re
import sys

oci, name, version = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def blob(descriptor):
    algorithm, digest = descriptor["digest"].split(":")
    return oci / "blobs" / algorithm / digest


check(json.loads((oci / "oci-layout").read_text()).get("imageLayoutVersion") == "1.0.0",
      "oci-layout")
index = json.loads((oci / "index.json").read_text())
manifests = index.get("manifests", [])
check(len(manifests) == 1, f"index.json: {len(manifests)} manifests, want 1")
ref = manifests[0].get("annotations", {}).get("org.opencontainers.image.ref.name")
check(ref == f"{name}:{version}", f"index.json: tagged {ref}, want {name}:{version}")
manifest = json.loads(blob(manifests[0]).read_text())
config = json.loads(blob(manifest["config"]).read_text())
run = config.get("config", {})
check(run.get("User") == "65534:65534", f"User {run.get('User')!r}, want 65534:65534")
check(run.get("Entrypoint") == [f"/usr/bin/{name}"], f"Entrypoint {run.get('Entrypoint')}")
check("9864/tcp" in run.get("ExposedPorts", {}), "9864/tcp not exposed")
check(config.get("os") == "linux", f"os {config.get('os')}")
labels = run.get("Labels") or {}
want = {
    "org.opencontainers.image.title": name,
    "org.opencontainers.image.version": version,
    "org.opencontainers.image.licenses": "Apache-2.0",
}
for key, value in want.items():
    check(labels.get(key) == value, f"label {key}={labels.get(key)!r}, want {value!r}")
check(re.fullmatch(r"[0-9a-f]{12,40}", labels.get("org.opencontainers.image.revision", "")),
      f"label revision {labels.get('org.opencontainers.image.revision')!r}")
check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
                   labels.get("org.opencontainers.image.created", "")),
      f"label created {labels.get('org.opencontainers.image.created')!r}")
check(labels.get("org.opencontainers.image.description"), "no description label")
for key, value in labels.items():  # no host names in the image
    check("://" not in value and not key.endswith(".source"), f"label {key}={value!r} names a host")
layers = manifest.get("layers", [])
check(layers, "no layer")
check(len(layers) == len(config.get("rootfs", {}).get("diff_ids", [])), "layers != diff_ids")
for layer in layers:
    check(layer["mediaType"].startswith("application/vnd.oci.image.layer.v1.tar"),
          f"layer media type {layer['mediaType']}")
    print(blob(layer))
print(f"index -> manifest -> config: {ref}, User {run.get('User')}, "
      f"Entrypoint {run.get('Entrypoint')}, Cmd {run.get('Cmd')}, {len(layers)} layer(s), "
      f"labels {sorted(labels)}", file=sys.stderr)
for failure in failures:
    print("FAIL:", failure, file=sys.stderr)
sys.exit(1 if failures else 0)
EOF
# The layers in order (whiteouts would delete files of earlier layers: there are none,
# the image is one layer on scratch, so one is a failure).
while read -r layer; do
  if tar -tf "$layer" | grep -q '\.wh\.'; then fail "layer $layer has whiteouts"; fi
  tar -xf "$layer" -C "$work/root" --numeric-owner
done <"$work/layers"
root="$work/root"
echo "unpacked $(wc -l <"$work/layers") layer(s): $(du -sh --apparent-size "$root" | cut -f1) in $(find "$root" -type f | wc -l) files"

echo "== the root file system =="
[ -x "$root/usr/bin/$name" ] || fail "no /usr/bin/$name"
if readelf -S "$root/usr/bin/$name" | grep -Eq '\.debug_info|\.symtab'; then fail "binary not stripped"; fi
for shell in bin/sh bin/bash usr/bin/sh usr/bin/bash; do
  [ ! -e "$root/$shell" ] || fail "the image has a shell: /$shell"
done
grep -qx 'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' "$root/etc/passwd" ||
  fail "no nobody (65534) in /etc/passwd"
grep -q '^nogroup:x:65534:' "$root/etc/group" || fail "no nogroup (65534) in /etc/group"
[ "$(stat -c %a "$root/tmp")" = 1777 ] || fail "/tmp is not mode 1777"
[ "$(stat -c %u:%g "$root/var/lib/$name")" = 65534:65534 ] || fail "the state folder is not 65534's"
[ -f "$root/usr/share/doc/libc6/copyright" ] || fail "no copyright file for libc6"
[ -f "$root/var/lib/dpkg/status.d/libc6" ] || fail "no dpkg record for libc6"
find "$root" -type f -printf '%P\n' | sort >"$work/files"
unexpected=$(grep -Ev "^(usr/bin/$name|usr/lib(64)?/.*\.so[.0-9]*|etc/(passwd|group)|etc/$name/config.yml|usr/share/doc/[^/]+/copyright|var/lib/dpkg/status.d/[^/]+)$" \
  "$work/files" || true)
[ -z "$unexpected" ] || fail "files besides the binary, its libraries and metadata: $unexpected"

chroot=$(command -v chroot)
in_root() { env -i "$chroot" --userspec=65534:65534 "$root" "/usr/bin/$name" "$@"; }

echo "== chroot --userspec=65534:65534 ROOT /usr/bin/$name --version =="
in_root --version | tee "$work/version" || fail "--version in the image's root"
grep -q "version $version " "$work/version" || fail "--version does not say $version"

echo "== --once over examples/ (copied into the root) =="
cp -r "$source_dir/examples" "$root/examples"
chmod -R a+rX "$root/examples"
status=0
in_root --config.file=/examples/config.yml --once >"$work/once.json" 2>"$work/once.log" || status=$?
cat "$work/once.log"
[ $status -eq 1 ] || { cat "$work/once.json"; fail "--once over examples/ exited $status, not 1 (a mismatch)"; }
python3 - "$work/once.json" <<'EOF' || fail "the m1nd brain is not reported as a mismatch"
import json
import sys

brains = {brain["brain"]: brain for brain in json.load(open(sys.argv[1]))["brains"]}
m1nd = brains.get("m1nd", {})
coherence = m1nd.get("skeleton_coherence") or {}
print("brains:", ", ".join(f"{name} {brain['state']}" for name, brain in sorted(brains.items())))
ok = (m1nd.get("state") == "mismatch" and coherence.get("status") == "mismatch"
      and coherence.get("expected_slug") == "m1nd" and coherence.get("found_slug") == "keyvault"
      and m1nd.get("runtime_dir", "").startswith("/examples/"))
sys.exit(0 if ok else 1)
EOF

echo "== serving the copy: /-/ready and /metrics =="
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# exec'd by env and chroot: $! is the exporter itself.
env -i "$chroot" --userspec=65534:65534 "$root" "/usr/bin/$name" --config.file=/examples/config.yml \
  --web.listen-address="127.0.0.1:$port" 2>"$work/serve.log" &
pid=$!
python3 - "$port" >"$work/metrics" <<'EOF' || { cat "$work/serve.log"; fail "no /-/ready, /metrics"; }
import sys
import time
import urllib.request

base = f"http://127.0.0.1:{sys.argv[1]}"
deadline = time.monotonic() + 20
while True:
    try:
        with urllib.request.urlopen(base + "/-/ready", timeout=2) as response:
            if response.status == 200:
                break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit(1)
    time.sleep(0.1)
with urllib.request.urlopen(base + "/metrics", timeout=5) as response:
    sys.stdout.write(response.read().decode())
EOF
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
[ $status -eq 0 ] || { cat "$work/serve.log"; fail "the exporter exited $status on SIGTERM"; }
grep -q '^skeleton_coherence{brain="m1nd",expected_slug="m1nd",found_slug="keyvault"} 0$' "$work/metrics" ||
  { cat "$work/serve.log"; fail "/metrics has no mismatch series for m1nd"; }
echo "/metrics: skeleton_coherence{brain=\"m1nd\",...} 0; stopped on SIGTERM"

echo "image test passed: $(basename "$archive"), $(stat -c %s "$archive") bytes," \
  "built in $build_seconds s, $((SECONDS - started)) s in all"
