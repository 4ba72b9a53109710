#!/usr/bin/env bash
# Fetch npm:restify@12.0.0 via `npm pack`, check the registry's integrity (sha512) and make
# DEST/restify@12.0.0 a git repo with one deterministic commit.
# Usage: bash fetch.sh DEST   -> creates DEST/restify@12.0.0/
set -euo pipefail
if [ $# -ne 1 ]; then echo "usage: bash fetch.sh DEST" >&2; exit 2; fi
. "$(dirname "$0")/../../fetch-lib.sh"
fetch_npm restify 12.0.0 'sha512-phWRX0ca9sSulM6SJ2SxnPze7gmkm2ePLNd6cuo9loM1UfARu+ZhcNNCKldEal/R3virVcl6Anp1XyPNVVCptQ==' "$1"
