# A test (src/runner/harness.rs): the supervisor's one-pass reading of case
# lines (_Run.case_lines) judges every result-channel line exactly as the
# line-by-line reading (_Run.line) does, on seeded hostile streams split into
# random chunks. Run with the harness's sources and limits on stdin
# (worker::check_input); prints "ok <streams> <lines>".
import json
import random
import sys

sources = json.loads(sys.stdin.read())
H = {"__name__": "autograder_harness_check"}
exec(compile(sources["harness"], "harness.py", "exec"), H)
H["_load"](sources, *H["_compile_programs"](json.dumps(sources))[:2])
Run = H["_Run"]
# Small enough to reach often (the harness's is 48 MiB).
H["LINE_LIMIT"] = 4096
H["INIT"] = {"cases": [("f", b"")] * 6, "timeout": 2, "wall": 60, "scratch": "/nonexistent", "tier": "none"}
rng = random.Random(7)

BODIES = [
    b'{"kind":"returned","value":1,"shares_with_args":false,"args_changed":false}',
    b"x",
    b" leading space",
    b"",
    b"tab\there",
    b"caf\xc3\xa9",
    b"\x7f",
    b"{" * 40,
]


def stream(n):
    """Lines a child (or student code sharing its channel) could write."""
    out = []
    k = 0
    for _ in range(rng.randrange(0, 12)):
        r = rng.random()
        if r < 0.6:
            i = k if rng.random() < 0.85 else rng.choice([k + 1, k - 1, n, 99, -1])
            head = (b"%d" % i) if rng.random() < 0.95 else rng.choice([b"0%d" % i, b"+%d" % i, b""])
            out.append(b"C " + head + b" " + rng.choice(BODIES))
            k += 1
        else:
            out.append(rng.choice([b"D", b"R", b"V", b"I", b"S", b"K", b"K 00", b"E {}", b"C", b"C 0", b"garbage", b""]))
    text = b"\n".join(out) + (b"\n" if rng.random() < 0.8 else b"")
    if rng.random() < 0.05:
        text += b"C %d " % k + b"y" * (H["LINE_LIMIT"] + 10)
    return text


def judge(text, fast, cuts, limit):
    run = Run({"source_hex": ""})
    run.n = run.nv = 6
    run.outcomes = [None] * 6
    if limit:
        run.reply_bytes = H["REPLY_LIMIT"] - 100
    if not fast:
        run.case_lines = lambda buf, st: False
    st = {"end": run.n, "pending": 0, "sandboxed": True, "imported": True, "compiled": True, "finished": False, "bad": False, "all": False, "scanned": 0, "hid_w": None}
    buf = bytearray()
    progress = []
    at = 0
    for cut in cuts + [len(text)]:
        buf += text[at:cut]
        at = cut
        progress.append(run.lines(buf, st))
    st.pop("hid_w")
    return (st, run.outcomes, run.findings, run.reply_bytes, bytes(buf), progress)


lines = 0
streams = 3000
for s in range(streams):
    text = stream(6)
    lines += text.count(b"\n")
    cuts = sorted(rng.randrange(0, len(text) + 1) for _ in range(rng.randrange(0, 4)))
    limit = rng.random() < 0.1
    a = judge(text, True, cuts, limit)
    b = judge(text, False, cuts, limit)
    if a != b:
        print("differ on %r (cuts %r):\n fast %r\n line %r" % (text[:300], cuts, a, b))
        sys.exit(1)
print("ok %d %d" % (streams, lines))
