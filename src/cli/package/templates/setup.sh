#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (written by `autograder package gradescope`). It installs nothing: the
# grader is the portable binary beside it (glibc 2.17 or newer), and student
# code runs on the image's own python3, which must be CPython 3.8 or newer.
set -euo pipefail
cd /autograder/source
python=/usr/bin/python3
if ! "$python" -c 'import platform, sys; sys.exit(platform.python_implementation() != "CPython" or sys.version_info < (3, 8))'; then
  echo "setup.sh: $python must be CPython 3.8 or newer; this image has: $("$python" --version 2>&1 || echo 'no python3')." >&2
  echo "setup.sh: choose a Gradescope base image with one: Ubuntu 20.04, 22.04 or 24.04 (CPython 3.8, 3.10, 3.12; 18.04 ships 3.6)." >&2
  exit 1
fi
chmod 0755 autograder run_autograder
./autograder --version
./autograder cases check --cases cases --assignment @ASSIGNMENT@
# One grade of an empty main.py while the image is built: the harness's
# compiled programs and the corpus's parsed cases are kept in this user's
# cache (~/.cache/autograder), so each student's run loads them instead of
# compiling and parsing them again (~30 ms of every grade). A warm-up that
# fails only costs that: each run then compiles and parses.
warm=$(mktemp -d)
: > "$warm/main.py"
if ./autograder grade "$warm" --cases cases --assignment @ASSIGNMENT@ --main-py-only --quiet > /dev/null; then
  echo "setup.sh: the harness's compiled programs and the parsed cases are cached for every run"
else
  echo "setup.sh: the warm-up grade failed (exit $?): each run compiles the harness's programs and parses the cases" >&2
fi
rm -rf "$warm"
