#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, and only those that are missing,
# then builds civetweb 1.15 with TLS and IPv6 from Debian's own source package.
# Idempotent: a second run installs and builds nothing and does not touch the network.
#
# Why civetweb is built here: Debian 12's libcivetweb1 loads OpenSSL at run time
# through the 1.1 API (it crashes on the first TLS handshake with OpenSSL 3) and has no
# IPv6. The same 1.15 source, from the Debian archive this machine already uses, is
# built as a static library with the OpenSSL 3 API, linked directly to the system
# libssl, with IPv6, into SCX_DEPS_DIR (default: .deps/ in the checkout, git-ignored).
# CMake links that build (see SCX_CIVETWEB_PREFIX in CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  # Build.
  g++ cmake make pkg-config clang-format
  # Libraries.
  prometheus-cpp-dev libcivetweb-dev nlohmann-json3-dev libyaml-cpp-dev libsimdjson-dev
  zlib1g-dev libssl-dev libcrypt-dev
  # Fetching and unpacking civetweb's Debian source package.
  dpkg-dev xz-utils
  # Tests and benchmarks (bench/run.py compares /metrics with node_exporter's textfile
  # collector serving the same text, and verdicts with a jq script's).
  libgtest-dev libgmock-dev libbenchmark-dev python3 openssl prometheus-node-exporter jq
  # libFuzzer targets.
  clang libclang-rt-14-dev
  # Real Prometheus, promtool, Alertmanager and amtool for the alerting tests.
  prometheus prometheus-alertmanager
  # The landing page rendered by a real browser (headless) and a font for its screenshot.
  chromium fonts-dejavu-core
  # The Debian package (cpack's Depends come from dpkg-shlibdeps, the man page from
  # help2man) and the manifest tests.
  dpkg-dev help2man python3-yaml
)

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

install_packages() {
  local missing=()
  for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$package")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages present"
    return
  fi
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# --- civetweb 1.15 from Debian's source package ---------------------------------------

civetweb_upstream="1.15"
deps_dir="${SCX_DEPS_DIR:-$PWD/.deps}"
civetweb_prefix="$deps_dir/civetweb"
civetweb_options=(
  -DCMAKE_BUILD_TYPE=Release
  -DBUILD_SHARED_LIBS=OFF
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  -DCIVETWEB_ENABLE_SSL=ON
  -DCIVETWEB_ENABLE_SSL_DYNAMIC_LOADING=OFF  # link libssl.so.3, never dlopen it
  -DCIVETWEB_SSL_OPENSSL_API_1_1=OFF
  # civetweb's threads poll in slices of SOCKET_TIMEOUT_QUANTUM ms and notice a stop
  # only between slices (2000 by default): 200 lets SIGTERM end the exporter well
  # within a second even with idle keep-alive connections open.
  "-DCMAKE_C_FLAGS=-DOPENSSL_API_3_0 -DSOCKET_TIMEOUT_QUANTUM=200"
  -DCIVETWEB_ENABLE_IPV6=ON
  -DCIVETWEB_SERVE_NO_FILES=ON
  -DCIVETWEB_DISABLE_CGI=ON
  -DCIVETWEB_BUILD_TESTING=OFF
  -DCIVETWEB_ENABLE_SERVER_EXECUTABLE=OFF
  -DCIVETWEB_INSTALL_EXECUTABLE=OFF
  -DCIVETWEB_ENABLE_ASAN=OFF
  -DCIVETWEB_ENABLE_DEBUG_TOOLS=OFF
)

# Prints deb-src entries for the Debian release this machine runs, derived from its
# own deb entries (one-line and deb822 formats), so no archive is named here.
derive_deb_src() {
  local codename="$1" file
  for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$file" ] || continue
    awk -v codename="$codename" '
      $1 == "deb" {
        suite = ($2 ~ /^\[/) ? "" : $3
        for (i = 2; i <= NF; i++) if ($i ~ /\]$/) { suite = $(i + 2); break }
        if (suite != codename) next
        sub(/^deb[ \t]+/, "deb-src "); print
      }' "$file"
  done >"$2.list"
  for file in /etc/apt/sources.list.d/*.sources; do
    [ -f "$file" ] || continue
    awk -v codename="$codename" '
      BEGIN { RS = ""; ORS = "\n" }
      {
        if ($0 ~ /(^|\n)Enabled:[ \t]*no/) next
        if ($0 !~ /(^|\n)Types:[^\n]*[ \t]deb([ \t]|\n|$)/) next
        if ($0 !~ ("(^|\\n)Suites:([^\\n]*[ \\t])?" codename "([ \\t]|\\n|$)")) next
        n = split($0, lines, "\n")
        for (i = 1; i <= n; i++) {
          if (lines[i] ~ /^#/) continue
          if (lines[i] ~ /^Types:/) lines[i] = "Types: deb-src"
          if (lines[i] ~ /^Suites:/) lines[i] = "Suites: " codename
          print lines[i]
        }
        print ""
      }' "$file"
  done >"$2.sources"
}

has_civetweb_source() {
  apt-cache showsrc civetweb 2>/dev/null | grep -q "^Version: $civetweb_upstream"
}

# Adds deb-src entries and refreshes only their indexes.
add_deb_src() {
  local codename work
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  if [ -z "$codename" ]; then
    echo "install-deps: cannot tell the Debian release from /etc/os-release" >&2
    exit 1
  fi
  work="$(mktemp -d)"
  derive_deb_src "$codename" "$work/scx-deb-src"
  if [ ! -s "$work/scx-deb-src.list" ] && [ ! -s "$work/scx-deb-src.sources" ]; then
    echo "install-deps: no 'deb' entry for $codename in /etc/apt to derive a deb-src entry from" >&2
    exit 1
  fi
  for kind in list sources; do
    if [ -s "$work/scx-deb-src.$kind" ]; then
      $sudo cp "$work/scx-deb-src.$kind" "/etc/apt/sources.list.d/scx-deb-src.$kind"
    else
      $sudo rm -f "/etc/apt/sources.list.d/scx-deb-src.$kind"
      rm -f "$work/scx-deb-src.$kind"
    fi
  done
  echo "install-deps: added deb-src entries for $codename (/etc/apt/sources.list.d/scx-deb-src.*)"
  $sudo apt-get update -qq -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work" \
    -o APT::Get::List-Cleanup=0
  rm -rf "$work"
}

build_civetweb() {
  local stamp_text stamp="$civetweb_prefix/scx-build-stamp"
  stamp_text="civetweb $civetweb_upstream ${civetweb_options[*]}"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_text" ] &&
     [ -f "$civetweb_prefix/lib/libcivetweb.a" ]; then
    echo "install-deps: civetweb $civetweb_upstream with TLS and IPv6 present in $civetweb_prefix"
    return
  fi
  has_civetweb_source || add_deb_src
  local version
  version="$(apt-cache showsrc civetweb | awk -v up="$civetweb_upstream" \
    '$1 == "Version:" && index($2, up) == 1 { print $2; exit }')"
  if [ -z "$version" ]; then
    echo "install-deps: the Debian archive has no civetweb $civetweb_upstream source package" >&2
    exit 1
  fi
  echo "install-deps: building civetweb $version (TLS with OpenSSL 3, IPv6) into $civetweb_prefix"
  local src="$deps_dir/civetweb-src" build="$deps_dir/civetweb-build"
  rm -rf "$src" "$build" "$civetweb_prefix"
  mkdir -p "$src"
  (cd "$src" && apt-get source -qq "civetweb=$version" >apt-get-source.log 2>&1) || {
    cat "$src/apt-get-source.log" >&2
    exit 1
  }
  local tree
  tree="$(find "$src" -mindepth 1 -maxdepth 1 -type d -name "civetweb-$civetweb_upstream*" | head -1)"
  local launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
  cmake -S "$tree" -B "$build" "${civetweb_options[@]}" "${launcher[@]}" \
    -DCMAKE_INSTALL_PREFIX="$civetweb_prefix" >"$deps_dir/civetweb-configure.log"
  cmake --build "$build" -j2 >"$deps_dir/civetweb-build.log"
  cmake --install "$build" >"$deps_dir/civetweb-install.log"
  echo "$stamp_text" >"$stamp"
  rm -rf "$src" "$build"
}

install_packages
mkdir -p "$deps_dir"
exec 9>"$deps_dir/.lock"
flock 9  # two runs at once (a build and a test) share one civetweb build
build_civetweb
