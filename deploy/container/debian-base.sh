#!/usr/bin/env bash
# Build an image base from Debian's own packages (trixie), for when the registry's official
# images can't be pulled: `debian-base.sh ENGINE TAG PACKAGE,PACKAGE...`. Needs mmdebstrap
# (apt-get install mmdebstrap) and root, or a rootless podman unshare.
set -euo pipefail
engine=$1 tag=$2 packages=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# postgresql-common would create a cluster of its own at install: the image makes its own.
mmdebstrap --quiet --variant=apt --aptopt='Apt::Install-Recommends "false"' \
  --essential-hook='mkdir -p "$1/etc/postgresql-common" && echo "create_main_cluster = false" >"$1/etc/postgresql-common/createcluster.conf"' \
  --include="ca-certificates,passwd,$packages" \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
  trixie "$work/base.tar" http://deb.debian.org/debian
"$engine" import --quiet "$work/base.tar" "$tag" >/dev/null
