# Puts the grader in $AUTOGRADER_BIN: the release archive at $AUTOGRADER_URL
# (checked against $AUTOGRADER_SHA256), else `cargo install` from
# $AUTOGRADER_GIT; kept while those three stay the same (the job's cache).
set -eu
bin="$AUTOGRADER_BIN"
source="$AUTOGRADER_URL $AUTOGRADER_SHA256 $AUTOGRADER_GIT"
if [ -x "$bin/autograder" ] && [ "$(cat "$bin/.source" 2>/dev/null)" = "$source" ]; then
  echo "autograder: from the cache"
elif [ -n "$AUTOGRADER_URL" ]; then
  if [ -z "$AUTOGRADER_SHA256" ]; then
    echo "error: AUTOGRADER_URL is set but AUTOGRADER_SHA256 is not: set it to the archive's .sha256" >&2
    exit 2
  fi
  rm -rf "$bin" && mkdir -p "$bin"
  curl --fail --silent --show-error --location --retry 3 --output "$bin/autograder.tar.gz" "$AUTOGRADER_URL"
  echo "$AUTOGRADER_SHA256  $bin/autograder.tar.gz" | sha256sum --check --strict --quiet -
  tar -xzf "$bin/autograder.tar.gz" -C "$bin" --strip-components=1
  rm "$bin/autograder.tar.gz"
elif [ -n "$AUTOGRADER_GIT" ]; then
  rm -rf "$bin" && mkdir -p "$bin"
  cargo install --locked --root "$bin/cargo" --git "$AUTOGRADER_GIT" autograder
  ln -s cargo/bin/autograder "$bin/autograder"
else
  echo "error: set AUTOGRADER_URL and AUTOGRADER_SHA256 (the release archive), or AUTOGRADER_GIT (cargo install)" >&2
  exit 2
fi
printf '%s\n' "$source" > "$bin/.source"
"$bin/autograder" --version
