# Shared by scripts/run and scripts/test: the Debian packages the project
# needs, and the build.  Sourced from the checkout's root.

# What building, running and testing need on Debian 12.
PACKAGES_BUILD="gcc make autoconf automake pkg-config libfcgi-dev libjson-c-dev libsqlite3-dev libpq-dev libcurl4-openssl-dev"
PACKAGES_RUN="lighttpd sqlite3 curl"
# python3-venv: the virtual environment of t3910's fuzzer (Python runs only that).
PACKAGES_TEST="libfcgi-bin procps apache2 libapache2-mod-fcgid nginx spawn-fcgi wrk e2fsprogs mount default-jdk-headless maven prometheus postgresql openssl iproute2 python3-venv"
# What scripts/bench adds: wrk, and for its PostgreSQL stage the server
# and pgbench (both in postgresql-15).
PACKAGES_BENCH="wrk postgresql-15"
# The page in a real browser (t3800): Debian's Chromium, driven by
# playwright-core from npm (tests/browser, pinned by its lock file).
PACKAGES_BROWSER="chromium nodejs npm"
# What scripts/test --ci adds: sanitizers, valgrind, static analysis, fuzzing.
PACKAGES_CI="valgrind cppcheck clang-tidy clang-format clang libclang-rt-14-dev strace"

# Installs the missing packages when root; otherwise prints the exact
# apt-get line and stops.
need_packages() {
	missing=
	for p in "$@"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		    grep -q 'install ok installed'; then
			missing="$missing $p"
		fi
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "missing Debian packages; as root, run:" >&2
		echo "  apt-get update && apt-get install -y --no-install-recommends$missing" >&2
		exit 1
	fi
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || exit 1
	# policy-rc.d keeps the packages from starting system daemons
	# (lighttpd would take port 80); ours start their own on loopback.
	rc=/usr/sbin/policy-rc.d
	made_rc=
	if [ ! -e "$rc" ]; then
		printf '#!/bin/sh\nexit 101\n' > "$rc" && chmod +x "$rc" && made_rc=1
	fi
	apt-get install -y -qq --no-install-recommends $missing
	status=$?
	[ -n "$made_rc" ] && rm -f "$rc"
	[ $status -eq 0 ] || exit 1
}

# Configures (once) and builds in the checkout.  Extra configure options
# may be given; a change of options reconfigures.
build() {
	if [ ! -x configure ] || [ configure.ac -nt configure ] ||
	    [ Makefile.am -nt configure ]; then
		autoreconf -fi || exit 1
	fi
	opts="$*"
	if [ ! -f Makefile ] || [ "$(cat .configure-opts 2>/dev/null)" != "$opts" ]; then
		# Other flags: nothing built with the old ones may stay.
		[ -f Makefile ] && make -s clean >/dev/null 2>&1
		./configure -q $opts || exit 1
		printf '%s' "$opts" > .configure-opts
	fi
	make -j"$(nproc 2>/dev/null || echo 2)" || exit 1
}
