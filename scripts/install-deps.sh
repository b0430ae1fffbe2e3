#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, and only those that are missing,
# then builds civetweb 1.15 with TLS and IPv6 from Debian's own source package.
#
#   scripts/install-deps.sh          what building and running the exporter needs
#                                    (scripts/run-example.sh)
#   scripts/install-deps.sh --test   that, and what the tests, fuzzing and benchmarks
#                                    need (scripts/test.sh)
#   scripts/install-deps.sh --image  that, and buildah for the container image
#                                    (scripts/build-image.sh; --test includes it)
#
# Idempotent: a second run installs and builds nothing and does not touch the network.
# It starts no service and leaves none enabled that was not before: packages are
# installed with a policy-rc.d that refuses every start, and any unit the install
# enabled is disabled again (and stopped, on a machine running systemd). The reasons
# for each package: docs/dependencies.md.
#
# Why civetweb is built here: Debian 12's libcivetweb1 loads OpenSSL at run time
# through the 1.1 API (it crashes on the first TLS handshake with OpenSSL 3) and has no
# IPv6. The same 1.15 source, from the Debian archive this machine already uses, is
# built as a static library with the OpenSSL 3 API, linked directly to the system
# libssl, with IPv6, into SCX_DEPS_DIR (default: .deps/ in the checkout, git-ignored).
# CMake links that build (see SCX_CIVETWEB_PREFIX in CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=false
with_image=false
case "${1:-}" in
  "") ;;
  --test) with_tests=true; with_image=true ;;  # the image test runs in CI (tests/deploy)
  --image) with_image=true ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: $0 [--test | --image]" >&2; exit 2 ;;
esac

# Building and running the exporter (docs/dependencies.md says why each is there).
packages=(
  # Compiler and build.
  g++ cmake make
  # Libraries the exporter links (prometheus-cpp: CMake requires it; it brings
  # Debian's libcivetweb-dev, whose headers the exporter does not use).
  prometheus-cpp-dev nlohmann-json3-dev libyaml-cpp-dev libsimdjson-dev
  zlib1g-dev libssl-dev libcrypt-dev
  # The runbook's HTML, rendered at build time (tools/): not linked into the exporter.
  libcmark-gfm-dev libcmark-gfm-extensions-dev pkg-config
  # Fetching and unpacking civetweb's Debian source package.
  dpkg-dev xz-utils patch
  # The Debian package's man page, from --help: `cpack -G DEB` in the quick start's
  # build-example/ packs it (perl, which it runs on, comes with dpkg-dev).
  help2man
)
if $with_tests; then
  packages+=(
    # GoogleTest, Google Benchmark; clang-format and clang-tidy (scripts/test.sh checks
    # the style and runs scripts/tidy.sh); shellcheck and flake8 (scripts/lint.sh).
    libgtest-dev libgmock-dev libbenchmark-dev clang-format clang-tidy shellcheck flake8
    # clang for the ASan build (with -Wthread-safety) and the libFuzzer targets; lld
    # links the sanitizer builds' hundred test binaries in a third of ld's time.
    clang libclang-rt-14-dev lld
    # Test scripts (python3-yaml: the Kubernetes manifest tests; python3-prometheus-client:
    # the strict OpenMetrics parser of tests/exporter/metrics/openmetrics_parse_test.py), the TLS and
    # flood tests' certificates (openssl) and HTTP client (curl).
    python3 python3-yaml python3-prometheus-client openssl curl
    # bench/run.py: the verdicts of one jq process as the baseline.
    jq
    # Real Prometheus, promtool, Alertmanager and amtool for the alerting tests (the
    # tests start their own on free loopback ports; Debian's services stay off).
    prometheus prometheus-alertmanager
    # The landing page rendered by a real browser (headless) and a font for its screenshot.
    chromium fonts-dejavu-core
    # systemd-analyze for the unit's test; strace for the check that the tests the
    # ThreadSanitizer build leaves out start no thread (tests/single_threaded_check.sh).
    systemd strace
  )
fi
if $with_image; then
  # The OCI image (scripts/build-image.sh, tests/deploy/image_test.sh): buildah builds
  # it from scratch without a daemon or a registry; it runs nothing in a container, so
  # its recommended runtimes (crun, runc) and fuse-overlayfs are not installed.
  packages+=(buildah)
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

missing_packages() {
  { dpkg-query -W -f='${Package} ${db:Status-Status}\n' "${packages[@]}" 2>/dev/null || true; } |
    awk '$2 == "installed" { print $1 }' | sort -u >"$1"
  printf '%s\n' "${packages[@]}" | sort -u | comm -23 - "$1"
}

# --- Services: none started, none left enabled ---------------------------------------

policy_rc_d=/usr/sbin/policy-rc.d
policy_rc_d_saved=""
policy_rc_d_ours=false

# Every unit or SysV script that is enabled: the symlinks `systemctl enable` and
# deb-systemd-helper make under /etc/systemd/system, and the start links in /etc/rc?.d.
enabled_links() {
  { find /etc/systemd/system -type l 2>/dev/null || true
    find /etc/rc2.d /etc/rc3.d /etc/rc4.d /etc/rc5.d -name 'S*' 2>/dev/null || true
  } | sort
}

# invoke-rc.d and deb-systemd-invoke ask policy-rc.d before starting a service; 101
# means "not allowed". An existing policy-rc.d is put back afterwards.
keep_services_stopped() {
  if [ -e "$policy_rc_d" ]; then
    policy_rc_d_saved="$(mktemp)"
    $sudo cp -p "$policy_rc_d" "$policy_rc_d_saved"
  fi
  printf '#!/bin/sh\n# scripts/install-deps.sh: no service starts while it installs.\nexit 101\n' |
    $sudo tee "$policy_rc_d" >/dev/null
  $sudo chmod 755 "$policy_rc_d"
  policy_rc_d_ours=true
}

restore_policy_rc_d() {
  $policy_rc_d_ours || return 0
  if [ -n "$policy_rc_d_saved" ]; then
    $sudo cp -p "$policy_rc_d_saved" "$policy_rc_d"
    $sudo rm -f "$policy_rc_d_saved"
  else
    $sudo rm -f "$policy_rc_d"
  fi
  policy_rc_d_ours=false
}

# Disables (and stops, under a running systemd) each unit whose enable link appeared
# during the install: only units the install itself enabled.
disable_new_units() {
  local before="$1" after="$2" link name units=()
  while read -r link; do
    case "$link" in
      /etc/rc?.d/S*) name="${link##*/S[0-9][0-9]}.service" ;;
      /etc/systemd/system/*/*) name="${link##*/}" ;;             # in a .wants/.requires folder
      *) name="$(basename "$(readlink "$link")")" ;;              # an alias: its unit
    esac
    [[ " ${units[*]} " == *" $name "* ]] || units+=("$name")
  done < <(comm -13 "$before" "$after")
  if [ ${#units[@]} -eq 0 ]; then
    echo "install-deps: services were kept from starting (policy-rc.d); none was enabled"
    return
  fi
  local now=()
  if [ -d /run/systemd/system ]; then now=(--now); fi  # a running systemd: stop them too
  if command -v systemctl >/dev/null; then
    $sudo systemctl disable "${now[@]}" --quiet "${units[@]}" || {
      echo "install-deps: could not disable ${units[*]}: disable them by hand" >&2
      exit 1
    }
  else
    for name in "${units[@]}"; do
      $sudo deb-systemd-helper disable "$name" >/dev/null 2>&1 || true
      if [ -x "/etc/init.d/${name%.service}" ]; then
        $sudo update-rc.d "${name%.service}" disable >/dev/null 2>&1 || true
      fi
    done
  fi
  echo "install-deps: services were kept from starting (policy-rc.d); disabled what the" \
    "install enabled: ${units[*]}"
}

install_packages() {
  local work missing
  work="$(mktemp -d)"
  mapfile -t missing < <(missing_packages "$work/installed")
  if [ ${#missing[@]} -eq 0 ]; then
    echo "install-deps: all ${#packages[@]} packages present (nothing installed, no service touched)"
    rm -rf "$work"
    return
  fi
  # One install at a time on this machine (two checkouts may run this at once), and
  # the list again once it is this run's turn.
  local lock=/run/lock/scx-install-deps.lock
  [ -d /run/lock ] || lock=/tmp/scx-install-deps.lock
  [ -e "$lock" ] || $sudo sh -c "umask 022; : >>'$lock'"
  exec 8<"$lock"
  flock 8
  mapfile -t missing < <(missing_packages "$work/installed")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}"
    local started=$SECONDS
    enabled_links >"$work/enabled-before"
    trap restore_policy_rc_d EXIT
    trap 'exit 130' INT TERM
    keep_services_stopped
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; exit 1; }
    restore_policy_rc_d
    trap - EXIT INT TERM
    enabled_links >"$work/enabled-after"
    disable_new_units "$work/enabled-before" "$work/enabled-after"
    echo "install-deps: installed ${#missing[@]} packages (and their dependencies) in" \
      "$((SECONDS - started)) s"
  fi
  exec 8<&-
  rm -rf "$work"
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
# Our patches to that source, applied in name order after Debian's (each says why:
# what the exporter cannot do from civetweb's callbacks). The stamp names their
# checksums, which CMakeLists.txt checks, so a build never links an unpatched copy.
civetweb_patches=(scripts/civetweb-patches/*.patch)

civetweb_patches_checksum() {
  cat "${civetweb_patches[@]}" | sha256sum | cut -d' ' -f1
}

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
  stamp_text="civetweb $civetweb_upstream ${civetweb_options[*]} patches=$(civetweb_patches_checksum)"
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
  local started=$SECONDS
  local src="$deps_dir/civetweb-src" build="$deps_dir/civetweb-build"
  rm -rf "$src" "$build" "$civetweb_prefix"
  mkdir -p "$src"
  (cd "$src" && apt-get source -qq "civetweb=$version" >apt-get-source.log 2>&1) || {
    cat "$src/apt-get-source.log" >&2
    exit 1
  }
  local tree
  tree="$(find "$src" -mindepth 1 -maxdepth 1 -type d -name "civetweb-$civetweb_upstream*" | head -1)"
  local patch_file
  for patch_file in "${civetweb_patches[@]}"; do
    patch -d "$tree" -p1 --quiet --forward <"$patch_file" || {
      echo "install-deps: $patch_file does not apply to civetweb $version" >&2
      exit 1
    }
  done
  local launcher=()
  if command -v ccache >/dev/null; then launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
  cmake -S "$tree" -B "$build" "${civetweb_options[@]}" "${launcher[@]}" \
    -DCMAKE_INSTALL_PREFIX="$civetweb_prefix" >"$deps_dir/civetweb-configure.log"
  cmake --build "$build" -j2 >"$deps_dir/civetweb-build.log"
  cmake --install "$build" >"$deps_dir/civetweb-install.log"
  echo "$stamp_text" >"$stamp"
  rm -rf "$src" "$build"
  echo "install-deps: built civetweb in $((SECONDS - started)) s"
}

install_packages
mkdir -p "$deps_dir"
exec 9>"$deps_dir/.lock"
flock 9  # two runs at once (a build and a test) share one civetweb build
build_civetweb
