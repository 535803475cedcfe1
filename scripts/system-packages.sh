#!/usr/bin/env bash
# Install the Debian packages the whole test suite uses, when they are missing: the
# PostgreSQL server (the tests start a throw-away one), a C compiler (the C example
# engine), Chromium (the browser tests, driven by Playwright at /usr/bin/chromium) and npm
# (axe-core, their accessibility checker).
# Needs root and apt-get; elsewhere it says what is missing and the tests that need it
# skip, saying why. The package lists are fetched once, only when something is missing.
set -euo pipefail
missing=()
if ! command -v initdb >/dev/null && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  missing+=(postgresql)
fi
if ! command -v cc >/dev/null; then
  missing+=(gcc)
fi
if [ ! -x /usr/bin/chromium ]; then
  missing+=(chromium)
fi
if ! command -v npm >/dev/null; then
  missing+=(npm)           # axe-core for the browser tests' accessibility checks
fi
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "note: ${missing[*]} missing (install them as root with apt-get; the tests that need" \
       "them are skipped)" >&2
  exit 0
fi
echo "installing ${missing[*]} with apt-get ..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || echo "could not update the package lists" >&2
for package in "${missing[@]}"; do
  apt-get install -y -qq "$package" >/dev/null || echo "could not install $package" >&2
done
