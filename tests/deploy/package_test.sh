#!/usr/bin/env bash
# The Debian package, built by cpack from an existing build tree (no rebuild): its
# control data and file list, then the package unpacked into a temporary root with
# `dpkg -x`, where the binary must be stripped and run `--version` and `--once`.
# lintian, when installed, must report no error (its warnings are printed).
# Usage: package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build_dir/CMakeCache.txt")
package=skeleton-coherence-exporter

work=$(mktemp -d "$build_dir/package-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

echo "== cpack -G DEB =="
cpack --config "$build_dir/CPackConfig.cmake" -G DEB -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack"; }
deb="$work/out/${package}_${version}-1_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || fail "no $deb"

echo "== dpkg-deb -I =="
dpkg-deb -I "$deb" | tee "$work/info"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = "$package" ] || fail "Package"
[ "$(field Version)" = "$version-1" ] || fail "Version is not project(VERSION) $version"
depends=$(field Depends)
for dependency in adduser libc6 libstdc++6 libyaml-cpp; do
  [[ "$depends" == *"$dependency"* ]] || fail "Depends lacks $dependency (from dpkg-shlibdeps?)"
done
# Every command the maintainer scripts run without checking for it first comes from a
# package the Depends names.
for command in adduser deb-systemd-helper deb-systemd-invoke; do
  owner=$(dpkg -S "$(command -v "$command")" | cut -d: -f1)
  [[ "$depends" == *"$owner"* ]] || fail "Depends lacks $owner, which gives $command"
done
dpkg-deb -e "$deb" "$work/control"
diff <(sort "$work/control/conffiles") <(printf '%s\n' /etc/default/$package /etc/$package/config.yml) ||
  fail "conffiles"
for script in postinst prerm postrm; do
  [ -x "$work/control/$script" ] || fail "no executable $script"
  sh -n "$work/control/$script" || fail "$script is not valid sh"
done
grep -Eq "adduser .*--system" "$work/control/postinst" || fail "postinst creates no system user"
grep -q "deb-systemd-helper enable" "$work/control/postinst" || fail "postinst does not enable the unit"

echo "== dpkg-deb -c =="
dpkg-deb -c "$deb" | awk '{print $NF}' | tee "$work/files"
for file in \
    ./usr/bin/$package ./etc/$package/config.yml ./etc/default/$package \
    ./lib/systemd/system/$package.service ./lib/systemd/system/$package.socket \
    ./usr/share/$package/alerts/skeleton-coherence.rules.yml \
    ./usr/share/$package/alerts/alertmanager.yml \
    ./usr/share/$package/dashboards/skeleton-coherence.json \
    ./usr/share/doc/$package/copyright ./usr/share/doc/$package/changelog.Debian.gz \
    ./usr/share/doc/$package/README.md ./usr/share/doc/$package/deploy.md \
    ./usr/share/man/man1/$package.1.gz; do
  grep -qxF "$file" "$work/files" || fail "not in the package: $file"
done

echo "== dpkg -x, then run from the unpacked root =="
root="$work/root"
dpkg -x "$deb" "$root"
binary="$root/usr/bin/$package"
if readelf -S "$binary" | grep -Eq '\.debug_info|\.symtab'; then fail "binary not stripped"; fi
grep -qxF "ExecStart=/usr/bin/$package --storage.path=/var/lib/$package --discovery.view=\${SCX_DISCOVERY_VIEW} \$ARGS" \
    "$root/lib/systemd/system/$package.service" ||
  fail "the unit does not run /usr/bin/$package"
"$binary" --version | tee "$work/version"
grep -q "version $version " "$work/version" || fail "--version does not say $version"
# The shipped config watches nothing (the system user has no home, no registry).
HOME=/nonexistent "$binary" --config.file="$root/etc/$package/config.yml" --once >"$work/empty.json"
grep -q '"brains": \[\]' "$work/empty.json" || fail "the shipped config watches brains"
# The unpacked binary finds the incident in examples/ (exit code 1: a mismatch).
status=0
"$binary" --config.file="$source_dir/examples/config.yml" --once >"$work/examples.json" || status=$?
[ $status -eq 1 ] || fail "--once over examples/ exited $status, not 1"
grep -q '"found_slug": "keyvault"' "$work/examples.json" || fail "the mismatch was not reported"
echo "--once: shipped config watches nothing; examples/ -> mismatch (exit 1)"

if command -v lintian >/dev/null; then
  echo "== lintian =="
  lintian --suppress-tags initial-upload-closes-no-bugs "$deb" | tee "$work/lintian" || true
  if grep -q '^E:' "$work/lintian"; then fail "lintian reports errors"; fi
else
  echo "lintian not installed: not run"
fi
echo "package test passed: $(basename "$deb"), $(stat -c %s "$deb") bytes"
