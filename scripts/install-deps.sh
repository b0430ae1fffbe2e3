#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, and only those that are missing.
# Idempotent: a second run installs nothing and does not touch the network.
set -euo pipefail

packages=(
  # Build.
  g++ cmake make pkg-config clang-format
  # Libraries.
  prometheus-cpp-dev libcivetweb-dev nlohmann-json3-dev libyaml-cpp-dev libsimdjson-dev
  zlib1g-dev libssl-dev libcrypt-dev
  # Tests and benchmarks.
  libgtest-dev libgmock-dev libbenchmark-dev python3 openssl
  # Real Prometheus, promtool, Alertmanager and amtool for the alerting tests.
  prometheus prometheus-alertmanager
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
