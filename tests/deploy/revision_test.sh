#!/usr/bin/env bash
# The git revision that --version, the build_info metric and the Debian changelog name
# (and the branch and build date --version prints) is read at every build, not when
# CMake configures: a clone of the sources is configured and its scx_build_info and
# scx_changelog targets built; then a commit is made and the targets built again, and
# both files must name the new commit. A build with no new commit must leave them
# alone (nothing to recompile): the build date is the commit's time, or
# SOURCE_DATE_EPOCH, never the clock.
# Usage: revision_test.sh BUILD_DIR SOURCE_DIR. Exit 77 (skip) outside a git checkout.
set -euo pipefail
build_dir=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
if ! command -v git >/dev/null || ! git -C "$source_dir" rev-parse --git-dir >/dev/null 2>&1; then
  echo "SKIP: $source_dir is not a git checkout"
  exit 77
fi
civetweb=$(sed -n 's/^SCX_CIVETWEB_PREFIX:PATH=//p' "$build_dir/CMakeCache.txt")

work=$(mktemp -d "$build_dir/revision-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

git clone -q --no-hardlinks "$source_dir" "$work/src"
cmake -S "$work/src" -B "$work/build" -DSCX_CIVETWEB_PREFIX="$civetweb" >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configure"; }
header="$work/build/generated/exporter/build_info.h"
changelog="$work/build/deploy/changelog.Debian.gz"
build() {
  cmake --build "$work/build" --target scx_build_info scx_changelog >"$work/build.log" 2>&1 ||
    { cat "$work/build.log"; fail "build"; }
}
names() {  # both files name revision $1; the header its branch and commit time too
  grep -q "kRevision\[\] = \"$1\";" "$header" || fail "build_info.h: $(grep kRevision "$header"), want $1"
  zcat "$changelog" | grep -q "at revision $1\." || fail "changelog: $(zcat "$changelog" | grep revision)"
  local branch date
  branch=$(git -C "$work/src" rev-parse --abbrev-ref HEAD)
  date=$(TZ=UTC git -C "$work/src" log -1 --date=format-local:%Y%m%d-%H:%M:%S --format=%cd "$1")
  grep -q "kBranch\[\] = \"$branch\";" "$header" || fail "build_info.h: $(grep kBranch "$header"), want $branch"
  grep -q "kBuildDate\[\] = \"$date\";" "$header" ||
    fail "build_info.h: $(grep kBuildDate "$header"), want the commit's time $date"
}

build
first=$(git -C "$work/src" rev-parse --short=12 HEAD)
names "$first"
# The header's mtime decides what make recompiles; the changelog is gzipped anew only
# when its text changed (gzip copies the mtime, so its ctime tells).
written() { stat -c %y "$header"; stat -c %z "$changelog"; }
before=$(written)
sleep 1
build
[ "$(written)" = "$before" ] || fail "rewritten with the same revision"

git -C "$work/src" -c user.name=revision-test -c user.email=revision-test@invalid \
  commit -q --allow-empty -m "a commit after the configure"
second=$(git -C "$work/src" rev-parse --short=12 HEAD)
[ "$second" != "$first" ] || fail "the commit did not change the revision"
build
names "$second"

# A reproducible build: SOURCE_DATE_EPOCH is the build date, and no user is named.
SOURCE_DATE_EPOCH=1700000000 build
grep -q 'kBuildDate\[\] = "20231114-22:13:20";' "$header" ||
  fail "SOURCE_DATE_EPOCH: $(grep kBuildDate "$header")"
grep -q 'kBuildUser\[\] = "unknown";' "$header" || fail "SOURCE_DATE_EPOCH: $(grep kBuildUser "$header")"
echo "ok: $first, then $second after a commit, without configuring again"
