"""CPU per recorded submission, side by side: the recorder (`autograder record
--no-cache`, one worker, per sandbox tier) against the runnable floor and one
fresh interpreter per submission (scripts/floor.py), on N copies of the model
solution (each with its own comment, so every source hash differs) over the
bundled cases/ (issue 11, item 3).

    python3 scripts/measure_record.py [N] [TIER...]

N defaults to 300; TIERs to bwrap and landlock. Needs a release build
(`cargo build --release --bin autograder --example case_inputs`). CPU is
every descendant's time: a cgroup v1 cpuacct group of its own per side where
one can be made (root), so processes that are never waited for (bwrap's PID
namespace ends with its processes) count too; else getrusage(RUSAGE_CHILDREN)
around each subprocess. The zygote, supervisors, children, reapers and Rust
all count. The sides run one after the other, twice each in alternation, so load
on the machine falls on all of them; the lower of the two is printed.
"""

import json
import os
import resource
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.join(ROOT, "target", "release", "autograder")
INPUTS_BIN = os.path.join(ROOT, "target", "release", "examples", "case_inputs")
PYTHON = "/usr/bin/python3"


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


CPUACCT = "/sys/fs/cgroup/cpuacct"


def timed(cmd, **kw):
    group = os.path.join(CPUACCT, "measure-record-%d" % os.getpid())
    try:
        os.mkdir(group)
    except OSError:
        group = None
    if group is None:
        before = children_cpu()
        subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
        return children_cpu() - before, "rusage"

    def join():
        with open(os.path.join(group, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    try:
        subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=join, **kw)
        with open(os.path.join(group, "cpuacct.usage")) as f:
            return int(f.read()) / 1e9, "cgroup"
    finally:
        os.rmdir(group)


def main(argv):
    n = int(argv[0]) if argv and argv[0].isdigit() else 300
    tiers = [a for a in argv if not a.isdigit()] or ["bwrap", "landlock"]
    model = open(os.path.join(ROOT, "submissions", "model-solution", "main.py")).read()
    with tempfile.TemporaryDirectory() as tmp:
        subs = os.path.join(tmp, "subs")
        for i in range(n):
            d = os.path.join(subs, "s%05d" % i)
            os.makedirs(d)
            with open(os.path.join(d, "main.py"), "w") as f:
                f.write("# copy %d\n%s" % (i, model))
        inputs = os.path.join(tmp, "inputs.json")
        with open(inputs, "wb") as f:
            f.write(subprocess.run([INPUTS_BIN, os.path.join(ROOT, "cases")], check=True, stdout=subprocess.PIPE).stdout)
        cases = len(json.load(open(inputs)))
        # The worker's uid must read the submissions (as root).
        os.chmod(tmp, 0o755)
        for dirpath, dirnames, filenames in os.walk(tmp):
            for d in dirnames:
                os.chmod(os.path.join(dirpath, d), 0o755)
            for fn in filenames:
                os.chmod(os.path.join(dirpath, fn), 0o644)
        sides = [("floor", [PYTHON, os.path.join(ROOT, "scripts", "floor.py"), inputs, subs]),
                 ("fresh python3", [PYTHON, os.path.join(ROOT, "scripts", "floor.py"), "--fresh", inputs, subs])]
        for tier in tiers:
            sides.append(("record %s" % tier, [BIN, "record", subs, "--cases", os.path.join(ROOT, "cases"), "--no-cache",
                                                 "--jobs", "1", "--isolation", tier, "--work-dir", os.path.join(tmp, "work-" + tier)]))
        best = {}
        for _ in range(2):
            for name, cmd in sides:
                used, how = timed(cmd, cwd=ROOT)
                best[name] = min(best.get(name, float("inf")), used)
        floor = best["floor"]
        print("%d submissions x %d cases (%s; CPU by %s)" % (n, cases, PYTHON, how))
        print("| side | CPU ms / submission | x floor |")
        print("|---|---|---|")
        for name, _ in sides:
            ms = 1000 * best[name] / n
            print("| %s | %.2f | %.2f |" % (name, ms, best[name] / floor))
        fresh = best["fresh python3"]
        for tier in tiers:
            print("record %s: fresh python3 / record = %.2f" % (tier, fresh / best["record %s" % tier]))


if __name__ == "__main__":
    main(sys.argv[1:])
