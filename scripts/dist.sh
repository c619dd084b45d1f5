#!/usr/bin/env bash
# Builds the portable release archive: the binary against glibc 2.17 (every
# Linux distribution of the last decade) with cargo-zigbuild, stripped, with
# shell completions and the man page generated from it.
#
#   scripts/dist.sh            -> dist/autograder-<version>-x86_64-linux.tar.gz (+ .sha256)
#
# Needs: rustup's x86_64-unknown-linux-gnu target and cargo-zigbuild
# (`python3 -m pip install cargo-zigbuild` brings zig along); installs the
# latter when missing. DIST_DIR and CARGO_TARGET_DIR (default target/zigbuild,
# apart from the normal build's) may be set.
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-unknown-linux-gnu
glibc=2.17
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/zigbuild}"
dist="${DIST_DIR:-$PWD/dist}"

if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  echo "dist.sh: the $target target is missing; trying rustup target add" >&2
  rustup target add "$target" || { echo "error: no $target target (offline?)" >&2; exit 2; }
fi
if ! cargo zigbuild --help >/dev/null 2>&1; then
  echo "dist.sh: installing cargo-zigbuild (and zig) with pip" >&2
  python3 -m pip install --quiet cargo-zigbuild || { echo "error: cannot install cargo-zigbuild" >&2; exit 2; }
fi

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
name="autograder-$version-x86_64-linux"
cargo zigbuild --release --locked --target "$target.$glibc" --bin autograder
binary="$CARGO_TARGET_DIR/$target/release/autograder"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/$name"
mkdir -p "$root/completions" "$root/man"
cp "$binary" "$root/autograder"
strip "$root/autograder"
"$root/autograder" completions bash > "$root/completions/autograder.bash"
"$root/autograder" completions zsh > "$root/completions/_autograder"
"$root/autograder" completions fish > "$root/completions/autograder.fish"
"$root/autograder" man > "$root/man/autograder.1"
cp README.md "$root/"
[ -f LICENSE ] && cp LICENSE "$root/"

mkdir -p "$dist"
archive="$dist/$name.tar.gz"
# Reproducible: sorted names, one owner, the commit's time.
mtime=$(git log -1 --format=%ct 2>/dev/null || echo 0)
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" \
  -C "$stage" -cf - "$name" | gzip -n -9 > "$archive"
(cd "$dist" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
echo "wrote $archive"
cat "$archive.sha256"
