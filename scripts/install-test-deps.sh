#!/usr/bin/env bash
# Installs what the test suite needs beyond Java 17 and Maven: Debian's Chromium and its
# WebDriver, for the dashboard's browser test (DashboardBrowserITCase in sluice-rest).
#
# Idempotent: does nothing when /usr/bin/chromium and /usr/bin/chromedriver are already there.
# Needs root (or sudo) and Debian's package repositories. Prints what it does.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
CHROMEDRIVER=/usr/bin/chromedriver

if [[ -x "$CHROMIUM" && -x "$CHROMEDRIVER" ]]; then
    echo "install-test-deps: $CHROMIUM and $CHROMEDRIVER are installed; nothing to do"
    "$CHROMIUM" --version 2>/dev/null || true
    exit 0
fi

APT_GET="$(command -v apt-get 2>/dev/null || true)"
if [[ -z "$APT_GET" || ! -x "$APT_GET" ]]; then
    echo "install-test-deps: $CHROMIUM or $CHROMEDRIVER is missing and apt-get is not available here;" >&2
    echo "  install Chromium and its matching chromedriver at those paths, or run the build with" >&2
    echo "  -Dsluice.skipBrowserTests=true to skip the dashboard's browser test" >&2
    echo "  (e.g. mvn -B verify -Dsluice.skipBrowserTests=true)" >&2
    exit 1
fi

SUDO=()
if [[ "$(id -u)" != 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "install-test-deps: installing chromium needs root; run this script as root or install sudo" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-test-deps: $CHROMIUM or $CHROMEDRIVER is missing; running apt-get update"
${SUDO[@]+"${SUDO[@]}"} "$APT_GET" update -q
echo "install-test-deps: installing the Debian packages chromium and chromium-driver"
${SUDO[@]+"${SUDO[@]}"} "$APT_GET" install -y -q --no-install-recommends chromium chromium-driver

for f in "$CHROMIUM" "$CHROMEDRIVER"; do
    if [[ ! -x "$f" ]]; then
        echo "install-test-deps: $f is still missing after the install" >&2
        exit 1
    fi
done
echo "install-test-deps: installed $("$CHROMIUM" --version 2>/dev/null || echo chromium) and $("$CHROMEDRIVER" --version 2>/dev/null | head -1)"
