#!/bin/sh
# Install the Debian packages proftools needs to build and test;
# with --bench also the reference tools the benchmarks run beside ours.
# Idempotent: prints nothing and exits 0 when everything is present.
set -eu

packages="build-essential pkg-config
libelf-dev libdw-dev libcapstone-dev libzstd-dev liblz4-dev zlib1g-dev
libbrotli-dev liblzma-dev libbz2-dev libsnappy-dev libdeflate-dev
libunwind-dev libxml2-utils mandoc zstd lz4 gzip xz-utils bzip2 valgrind linux-perf
elfutils binutils util-linux procps chromium"

bench_packages="time heaptrack perl"
[ "${1:-}" = --bench ] && packages="$packages $bench_packages"

missing=
for p in $packages; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: missing packages:$missing" >&2
	echo "install-deps.sh: run as root, or: sudo apt-get install$missing" >&2
	exit 1
fi

echo "install-deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
