#!/bin/sh
# Install the Debian packages proftools needs to build and test;
# with --bench also the reference tools the benchmarks run beside ours.
# Idempotent: prints nothing and exits 0 when everything is present.
#
# As root, installs what is missing. Otherwise installs nothing: exits 1
# when a package needed to build is missing; when only optional ones are
# (tools the tests compare with or drive, optional codec libraries), says
# which and exits 0: the build leaves those codecs out and the tests that
# need a missing tool report SKIP with the reason (make check as a user).
set -eu

build_packages="build-essential pkg-config
libelf-dev libdw-dev libzstd-dev liblz4-dev zlib1g-dev libiberty-dev libcapstone-dev"
optional_packages="libbrotli-dev liblzma-dev libbz2-dev libsnappy-dev libdeflate-dev
libunwind-dev libxml2-utils mandoc zstd lz4 gzip xz-utils bzip2 valgrind linux-perf
elfutils binutils util-linux procps chromium clang lld llvm libclang-rt-dev rustc
default-jdk-headless golang-go"

bench_packages="time heaptrack perl"
[ "${1:-}" = --bench ] && optional_packages="$optional_packages $bench_packages"

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "install-deps.sh: not a Debian system (no dpkg-query); install the equivalents of:" \
		$build_packages $optional_packages >&2
	exit 0
fi

# missing PACKAGE...: those not installed
missing() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
			printf ' %s' "$p"
	done
}
# shellcheck disable=SC2086
missing_build=$(missing $build_packages)
# shellcheck disable=SC2086
missing_optional=$(missing $optional_packages)
[ -z "$missing_build$missing_optional" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	if [ -n "$missing_build" ]; then
		echo "install-deps.sh: missing packages needed to build:$missing_build" >&2
		echo "install-deps.sh: run as root, or: sudo apt-get install$missing_build$missing_optional" >&2
		exit 1
	fi
	echo "install-deps.sh: not root, not installing optional packages:$missing_optional" >&2
	echo "install-deps.sh: tests that need them are skipped (sudo apt-get install$missing_optional)" >&2
	exit 0
fi

missing="$missing_build$missing_optional"
echo "install-deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
