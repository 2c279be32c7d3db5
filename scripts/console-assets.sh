#!/usr/bin/env bash
# Fetches the web console's vendored JavaScript from npm at pinned
# versions, checks each file's SHA-256 and writes it under
# server/console/static/vendor/. The files are committed: `go build`
# needs nothing else, and server/console's tests check that the committed
# files are exactly these. To upgrade, change a version and its hash here,
# run this script and commit the files.
#
#   scripts/console-assets.sh          fetch, check and write the files
#   scripts/console-assets.sh check    fetch and compare with the committed files
#
# Needs npm (npm pack) and sha256sum.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=server/console/static/vendor

# package version file-in-package sha256 (one asset a line; the Go test
# reads these lines).
assets=(
	"htmx.org 2.0.11 dist/htmx.min.js d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717"
	"cytoscape 3.34.4 dist/cytoscape.min.js 081591ab735b2b6a3b31a3c60f8f3a3e2fee8c92939e0c7820ad1208571b6cd8"
)

mode=${1:-write}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for a in "${assets[@]}"; do
	read -r pkg version file sum <<<"$a"
	(cd "$tmp" && npm pack --silent "$pkg@$version" >/dev/null)
	tarball=$(ls "$tmp"/"${pkg//\//-}"-"$version".tgz)
	mkdir -p "$tmp/$pkg"
	tar -xzf "$tarball" -C "$tmp/$pkg" "package/$file" "package/LICENSE"
	got=$(sha256sum "$tmp/$pkg/package/$file" | cut -d' ' -f1)
	if [[ $got != "$sum" ]]; then
		echo "console-assets: $pkg@$version $file has sha256 $got, want $sum" >&2
		exit 1
	fi
	name=$(basename "$file")
	case $mode in
	write)
		cp "$tmp/$pkg/package/$file" "$dest/$name"
		cp "$tmp/$pkg/package/LICENSE" "$dest/${name%%.*}.LICENSE"
		echo "$dest/$name: $pkg@$version ($sum)"
		;;
	check)
		if ! cmp -s "$tmp/$pkg/package/$file" "$dest/$name"; then
			echo "console-assets: $dest/$name is not $pkg@$version's $file: run scripts/console-assets.sh" >&2
			exit 1
		fi
		;;
	*)
		echo "usage: scripts/console-assets.sh [check]" >&2
		exit 2
		;;
	esac
done
