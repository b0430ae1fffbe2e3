#!/usr/bin/env bash
# Builds the exporter's OCI image with Debian's buildah, from Debian packages only: no
# daemon, no registry, no base image. The image is `FROM scratch` plus one layer: the
# exporter binary (stripped), exactly the shared libraries `ldd` names and the dynamic
# loader, copied from this Debian 12 machine, with their packages' copyright files and
# dpkg records (/var/lib/dpkg/status.d/, for image scanners), a minimal /etc/passwd and
# /etc/group, /tmp, the shipped config and an empty state folder. No shell, no package
# manager. It runs as 65534:65534 (nobody:nogroup, the DaemonSet's runAsUser) with the
# exporter as its entrypoint, exposes 9864/tcp and carries org.opencontainers.image.*
# labels (version and revision from the binary's --version, which has them from
# project(VERSION) and git).
#
#   scripts/build-image.sh [--binary FILE] [OUT_DIR]
#
# OUT_DIR (default build-image/) receives skeleton-coherence-exporter-VERSION.oci.tar,
# an OCI archive (an OCI layout in a tar) holding the image tagged
# skeleton-coherence-exporter:VERSION, the name deploy/kubernetes/daemonset.yml runs.
# The last line of the output is that archive's path. Without --binary, it first
# installs what is missing (scripts/install-deps.sh --image) and builds the exporter
# alone, optimized without debug info as scripts/run-example.sh does, in OUT_DIR/build
# (incremental: a second run compiles nothing). --binary FILE puts an exporter built
# elsewhere into the image instead (tests/deploy/image_test.sh: the build tree's).
#
# buildah keeps its storage in a temporary folder under OUT_DIR (vfs driver, --root and
# --runroot), removed at exit with the working container. Its push also writes a blob
# cache, /var/lib/containers/cache/ (no option moves it): removed too unless it was
# there before, so nothing is left in /var/lib/containers. Runs as root (rootless buildah would need /etc/subuid).
# Pushing the archive to a registry, loading it into a node: docs/deploy.md.
# SOURCE_DATE_EPOCH, when set, is the image's creation time; else the commit time of
# the binary's revision (else now): the same binary gives the same image.
set -euo pipefail
cd "$(dirname "$0")/.."
name=skeleton-coherence-exporter

binary=""
out_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) [ $# -ge 2 ] || { echo "build-image: --binary needs a file" >&2; exit 2; }
              binary=$2; shift 2 ;;
    --binary=*) binary=${1#--binary=}; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "usage: $0 [--binary FILE] [OUT_DIR]" >&2; exit 2 ;;
    *) [ -z "$out_dir" ] || { echo "usage: $0 [--binary FILE] [OUT_DIR]" >&2; exit 2; }
       out_dir=$1; shift ;;
  esac
done
out_dir=${out_dir:-build-image}
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
started=$SECONDS

if [ -z "$binary" ]; then
  ./scripts/install-deps.sh --image
  build_dir="$out_dir/build"
  mkdir -p "$build_dir"
  launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  if ! cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" \
       -DSCX_BUILD_TESTS=OFF -DSCX_BUILD_BENCH=OFF "${launcher[@]}" >"$build_dir/configure.log" 2>&1; then
    cat "$build_dir/configure.log" >&2
    echo "build-image: configuring $build_dir failed (log: $build_dir/configure.log)" >&2
    exit 1
  fi
  cmake --build "$build_dir" -j2 --target "$name"
  binary="$build_dir/bin/$name"
  echo "build-image: exporter built in $((SECONDS - started)) s"
fi
[ -x "$binary" ] || { echo "build-image: no executable $binary" >&2; exit 1; }
for tool in buildah ldd strip tar dpkg-query; do
  command -v "$tool" >/dev/null ||
    { echo "build-image: $tool is missing: ./scripts/install-deps.sh --image" >&2; exit 1; }
done

# "skeleton-coherence-exporter, version 0.1.0 (branch: main, revision: 2c809d2059a6)",
# then the build user, date, toolchain and platform on lines of their own.
version_line=$("$binary" --version | head -n 1)
version=$(sed -n 's/.*, version \([^ ]*\) .*/\1/p' <<<"$version_line")
revision=$(sed -n 's/.*revision: \([^)]*\)).*/\1/p' <<<"$version_line")
project_version=$(sed -n 's/^project([^ ]* VERSION \([^ )]*\).*/\1/p' CMakeLists.txt)
if [ -z "$version" ] || [ "$version" != "$project_version" ]; then
  echo "build-image: $binary says \"$version_line\", not version $project_version" \
    "(project(VERSION) in CMakeLists.txt): rebuild it" >&2
  exit 1
fi
# The full commit id when this checkout has it (the binary names 12 digits).
if full=$(git rev-parse --verify --quiet "$revision^{commit}" 2>/dev/null); then revision=$full; fi
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct "$revision" 2>/dev/null || date +%s)}
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)

work=$(mktemp -d "$out_dir/image-build.XXXXXX")
buildah=(buildah --storage-driver vfs --root "$work/storage" --runroot "$work/run")
container=""
# What buildah's blob cache leaves behind, unless it was there before this run.
leftovers=()
for path in /var/lib/containers /var/lib/containers/cache \
            /var/lib/containers/cache/blob-info-cache-v1.boltdb; do
  if [ ! -e "$path" ]; then leftovers+=("$path"); break; fi
done
cleanup() {
  if [ -n "$container" ]; then "${buildah[@]}" rm "$container" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
  if [ ${#leftovers[@]} -gt 0 ]; then rm -rf "${leftovers[@]}"; fi
}
trap cleanup EXIT

# --- The root file system --------------------------------------------------------------
root="$work/root"
mkdir -p "$root"/usr/bin "$root"/etc/$name "$root"/var/lib/$name "$root"/usr/share/doc/$name \
  "$root"/var/lib/dpkg/status.d "$root"/tmp
# Debian 12 merges /usr: /bin, /lib and /lib64 are links into /usr, and the binary's
# loader path (/lib64/ld-linux-x86-64.so.2) resolves through them.
for dir in bin lib lib64; do
  if [ -L "/$dir" ]; then ln -s "$(readlink "/$dir")" "$root/$dir"; fi
done
install -m 0755 "$binary" "$root/usr/bin/$name"
strip --strip-unneeded "$root/usr/bin/$name"

# Every library ldd names (by its path) and the loader, at their real folders.
mapfile -t libraries < <(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
[ ${#libraries[@]} -gt 0 ] || { echo "build-image: ldd names no library in $binary" >&2; exit 1; }
# The package that installed a library: dpkg records the path the package ships,
# which under the merged /usr may be the /lib or the /usr/lib spelling.
owner_of() {
  local real candidate
  real=$(realpath "$1")
  for candidate in "$1" "$(dirname "$1")/$(basename "$real")" "$real" "${real#/usr}"; do
    dpkg-query -S "$candidate" 2>/dev/null | sed -n '1s/:.*//p' | grep . && return
  done
  return 0
}
packages=()
for library in "${libraries[@]}"; do
  dir=$(realpath "$(dirname "$library")")
  mkdir -p "$root$dir"
  cp -L "$library" "$root$dir/$(basename "$library")"  # the host's mode: the loader's is 0755
  package=$(owner_of "$library")
  if [ -n "$package" ] && [[ " ${packages[*]} " != *" $package "* ]]; then packages+=("$package"); fi
done
# Each library's package: its copyright file, and its dpkg record (scanners read
# /var/lib/dpkg/status.d/ to match the image's libraries against Debian's advisories).
for package in "${packages[@]}"; do
  if [ -f "/usr/share/doc/$package/copyright" ]; then
    mkdir -p "$root/usr/share/doc/$package"
    cp "/usr/share/doc/$package/copyright" "$root/usr/share/doc/$package/copyright"
  fi
  dpkg-query -s "$package" | grep -Ev '^(Status|Conffiles|Config-Version):' \
    >"$root/var/lib/dpkg/status.d/$package"
done
cp LICENSE "$root/usr/share/doc/$name/copyright"
install -m 0644 deploy/config.yml "$root/etc/$name/config.yml"

cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
EOF
chmod 0644 "$root/etc/passwd" "$root/etc/group"
chmod 1777 "$root/tmp"
chmod 0700 "$root/var/lib/$name"

# One tar, owned by root but for the state folder (the user's), in a stable order.
tar_options=(--numeric-owner --sort=name --mtime="@$epoch" --format=gnu)
tar -C "$root" -cf "$work/rootfs.tar" "${tar_options[@]}" --owner=0 --group=0 \
  --exclude="./var/lib/$name" .
tar -C "$root" -rf "$work/rootfs.tar" "${tar_options[@]}" --owner=65534 --group=65534 \
  --no-recursion "./var/lib/$name"
rootfs_bytes=$(du -sb --apparent-size "$root" | cut -f1)

# --- The image ---------------------------------------------------------------------------
log="$work/buildah.log"
run_buildah() {
  "${buildah[@]}" "$@" >>"$log" 2>&1 || {
    cat "$log" >&2
    echo "build-image: buildah $1 failed" >&2
    exit 1
  }
}
container=$("${buildah[@]}" from --quiet scratch 2>>"$log") || { cat "$log" >&2; exit 1; }
run_buildah add "$container" "$work/rootfs.tar" /
labels=(
  "org.opencontainers.image.title=$name"
  "org.opencontainers.image.description=Prometheus exporter: alarms when an m1nd brain serves a skeleton that is not its own"
  "org.opencontainers.image.version=$version"
  "org.opencontainers.image.revision=$revision"
  "org.opencontainers.image.licenses=Apache-2.0"
  "org.opencontainers.image.created=$created"
)
label_args=()
for label in "${labels[@]}"; do label_args+=(--label "$label"); done
run_buildah config --entrypoint "[\"/usr/bin/$name\"]" \
  --cmd "[\"--config.file=/etc/$name/config.yml\"]" --user 65534:65534 --port 9864/tcp \
  --created-by "scripts/build-image.sh" --workingdir / --env PATH=/usr/bin --os linux --arch "$(dpkg --print-architecture)" \
  "${label_args[@]}" "$container"
run_buildah commit --quiet --format oci --identity-label=false --timestamp "$epoch" \
  "$container" "$name:$version"
archive="$out_dir/$name-$version.oci.tar"
rm -f "$archive"
run_buildah push --quiet "$name:$version" "oci-archive:$archive:$name:$version"

echo "build-image: $name:$version (revision $revision), ${#libraries[@]} libraries from" \
  "${#packages[@]} Debian packages, root file system $((rootfs_bytes / 1024)) KiB," \
  "archive $(($(stat -c %s "$archive") / 1024)) KiB, in $((SECONDS - started)) s"
echo "$archive"
