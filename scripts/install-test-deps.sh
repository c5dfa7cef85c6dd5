#!/usr/bin/env bash
# Installs what the test suite needs beyond Java 17 and Maven, from Debian's repositories:
#   - chromium and chromium-driver, for the dashboard's browser test (DashboardBrowserITCase in
#     sluice-rest): required, the script fails when it cannot install them;
#   - libfaketime, for the clock-step test (ClockStepProcessesITCase in sluice-e2e): wanted, a
#     failed install only warns, and that test is then skipped with a message saying why.
#
# Idempotent: does nothing when /usr/bin/chromium, /usr/bin/chromedriver and libfaketime are
# already there. Needs root (or sudo) and Debian's package repositories. Prints what it does.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
CHROMEDRIVER=/usr/bin/chromedriver

have_chromium() { [[ -x "$CHROMIUM" && -x "$CHROMEDRIVER" ]]; }
have_libfaketime() { compgen -G "/usr/lib/*/faketime/libfaketime.so.1" >/dev/null; }

if have_chromium && have_libfaketime; then
    echo "install-test-deps: $CHROMIUM, $CHROMEDRIVER and libfaketime are installed; nothing to do"
    "$CHROMIUM" --version 2>/dev/null || true
    exit 0
fi

# Installs the Debian packages given; returns apt-get's status instead of exiting on it.
apt_install() {
    local apt_get sudo=()
    apt_get="$(command -v apt-get 2>/dev/null || true)"
    if [[ -z "$apt_get" || ! -x "$apt_get" ]]; then
        echo "install-test-deps: apt-get is not available here to install $*" >&2
        return 1
    fi
    if [[ "$(id -u)" != 0 ]]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "install-test-deps: installing $* needs root; run this script as root or install sudo" >&2
            return 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    if [[ -z "${APT_UPDATED:-}" ]]; then
        echo "install-test-deps: running apt-get update"
        ${sudo[@]+"${sudo[@]}"} "$apt_get" update -q || return 1
        APT_UPDATED=1
    fi
    echo "install-test-deps: installing the Debian packages $*"
    ${sudo[@]+"${sudo[@]}"} "$apt_get" install -y -q --no-install-recommends "$@"
}

if ! have_chromium; then
    if ! apt_install chromium chromium-driver; then
        echo "install-test-deps: $CHROMIUM or $CHROMEDRIVER is missing and could not be installed;" >&2
        echo "  install Chromium and its matching chromedriver at those paths, or run the build with" >&2
        echo "  -Dsluice.skipBrowserTests=true to skip the dashboard's browser test" >&2
        echo "  (e.g. mvn -B verify -Dsluice.skipBrowserTests=true)" >&2
        exit 1
    fi
    for f in "$CHROMIUM" "$CHROMEDRIVER"; do
        if [[ ! -x "$f" ]]; then
            echo "install-test-deps: $f is still missing after the install" >&2
            exit 1
        fi
    done
    echo "install-test-deps: installed $("$CHROMIUM" --version 2>/dev/null || echo chromium) and $("$CHROMEDRIVER" --version 2>/dev/null | head -1)"
fi

if ! have_libfaketime; then
    if apt_install libfaketime && have_libfaketime; then
        echo "install-test-deps: installed libfaketime ($(compgen -G "/usr/lib/*/faketime/libfaketime.so.1" | head -1))"
    else
        echo "install-test-deps: WARNING: libfaketime could not be installed; ClockStepProcessesITCase (the machine's" >&2
        echo "  clock stepped under running processes) will be skipped. Install the Debian package libfaketime to run it." >&2
    fi
fi
