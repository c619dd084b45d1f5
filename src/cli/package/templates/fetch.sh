# Puts the grader in $AUTOGRADER_BIN: the release archive at $AUTOGRADER_URL
# (checked against $AUTOGRADER_SHA256), else `cargo install` from
# $AUTOGRADER_GIT. The job's cache keeps the archive, checked again on every
# run and unpacked afresh; nothing else kept there is run, but a `cargo
# install` kept outside the checkout (with no SHA-256 to check, one inside
# it is never reused): whatever is committed in the repository, even in
# $AUTOGRADER_BIN, is not the grader.
set -eu
bin="$AUTOGRADER_BIN"
source="$AUTOGRADER_URL $AUTOGRADER_SHA256 $AUTOGRADER_GIT"
if [ -n "$AUTOGRADER_URL" ]; then
  if [ -z "$AUTOGRADER_SHA256" ]; then
    echo "error: AUTOGRADER_URL is set but AUTOGRADER_SHA256 is not: set it to the archive's .sha256" >&2
    exit 2
  fi
  # A copy of the kept archive (read through any link) is what is checked
  # and unpacked.
  archive="$(mktemp)"
  if cp "$bin/autograder.tar.gz" "$archive" 2>/dev/null \
    && echo "$AUTOGRADER_SHA256  $archive" | sha256sum --check --strict --quiet - 2>/dev/null; then
    echo "autograder: from the cache (its archive matches AUTOGRADER_SHA256)"
  else
    curl --fail --silent --show-error --location --retry 3 --output "$archive" "$AUTOGRADER_URL"
    echo "$AUTOGRADER_SHA256  $archive" | sha256sum --check --strict --quiet -
  fi
  rm -rf "$bin" && mkdir -p "$bin"
  tar -xzf "$archive" -C "$bin" --strip-components=1
  mv "$archive" "$bin/autograder.tar.gz"
elif [ -n "$AUTOGRADER_GIT" ]; then
  top="$(git rev-parse --show-toplevel 2>/dev/null || pwd -P)"
  case "$(realpath -m "$bin")/" in
    "$(realpath -m "$top")"/* | "$(pwd -P)"/*) outside=false ;;
    *) outside=true ;;
  esac
  if $outside && [ -x "$bin/autograder" ] && [ "$(cat "$bin/.source" 2>/dev/null)" = "$source" ]; then
    echo "autograder: from the cache (built from $AUTOGRADER_GIT)"
  else
    rm -rf "$bin" && mkdir -p "$bin"
    cargo install --locked --root "$bin/cargo" --git "$AUTOGRADER_GIT" autograder
    ln -s cargo/bin/autograder "$bin/autograder"
    printf '%s\n' "$source" > "$bin/.source"
  fi
else
  echo "error: set AUTOGRADER_URL and AUTOGRADER_SHA256 (the release archive), or AUTOGRADER_GIT (cargo install)" >&2
  exit 2
fi
"$bin/autograder" --version
