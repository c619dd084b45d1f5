"""autograder harness boot: starts harness.py from the code an earlier run
compiled, or from its source.

Run by the grader (src/runner/worker.rs) as `<python> -s -S -c <this file>`
with harness.py's arguments; small, so that the interpreter compiles little
before the harness runs (harness.py compiled from source is 2-3 ms of a
run's start). Reads on stdin, written by the grader as it starts the
harness (src/runner/protocol.rs, boot_message): the line
`autograder-boot <source bytes> <cache bytes> <tag, hex>`, harness.py's
source, then the cache: the marshal bytes of (the programs' code, tagged.py's,
confine.py's, harness.py's) as a run compiled them, from the user's cache
(src/runner/compiled.rs; empty when there is none), and which interpreter
build compiled it (harness.py's _code_tag). It runs the cache's harness.py
when the tag is this interpreter's and it holds that code, compiles the
source otherwise, and leaves harness.py `_BOOT`: (what the reads brought past
these, the source, the cache's values when used, the code compiled here or
None)."""

import marshal as _marshal
import os as _os
import sys as _sys


def _boot():
    buf = b""
    while b"\n" not in buf:
        chunk = _os.read(0, 1 << 16)
        if not chunk:
            raise SystemExit("harness: stdin ended before the boot line")
        buf += chunk
    head, _, buf = buf.partition(b"\n")
    parts = head.split(b" ")
    if len(parts) != 4 or parts[0] != b"autograder-boot" or not (parts[1].isdigit() and parts[2].isdigit()):
        raise SystemExit("harness: no boot line")
    n_source, n_cache = int(parts[1]), int(parts[2])
    tag = bytes.fromhex(parts[3].decode("ascii")).decode("utf-8", "replace")
    chunks = [buf]
    have = len(buf)
    while have < n_source + n_cache:
        chunk = _os.read(0, max(n_source + n_cache - have, 1 << 16))
        if not chunk:
            raise SystemExit("harness: stdin ended inside the boot data")
        chunks.append(chunk)
        have += len(chunk)
    data = b"".join(chunks)
    source = data[:n_source]
    cached = None
    if n_cache and tag == "%s|%d|%s" % (_sys.version, _sys.flags.optimize, _sys.implementation.cache_tag):
        try:
            cached = _marshal.loads(data[n_source : n_source + n_cache])
        except BaseException:
            cached = None
        code_type = type(_boot.__code__)
        if not (type(cached) is tuple and len(cached) == 4 and type(cached[3]) is code_type and cached[3].co_filename == "harness.py"):
            cached = None
    if cached is not None:
        return cached[3], (data[n_source + n_cache :], source, cached, None)
    code = compile(source, "harness.py", "exec")
    return code, (data[n_source + n_cache :], source, None, code)


_code, _BOOT = _boot()
del _boot
exec(_code)
