#!/usr/bin/env python3
"""Mutation analysis of the case corpus by mutmut, a tool no one here wrote.

Every correct solution the repository holds (the model solution and the
independent ones) is mutated by mutmut (pinned: MUTMUT_VERSION), and every
mutant is judged by the grader as `mutmut run --runner "autograder grade .
--main-py-only --fail-under 100"` would judge it: killed when it scores below
100% on the lessons the solution covers, or cannot be graded. A survivor is
equivalent either by rule (the mutation is confined to the arguments of a
`raise`, or of a call to a function whose body is one `raise`: the contract
grades the exception's class, never its message) or by
an entry, with its reason, in the reviewed list (EQUIVALENT); any other
survivor is a gap in the corpus.

    python3 scripts/mutmut_corpus.py              # mutate, grade, report
    python3 scripts/mutmut_corpus.py --check      # exit 1 on an unexplained or stale survivor,
                                                  # or figures the doc does not show
    python3 scripts/mutmut_corpus.py --write-doc  # write the figures into the doc
    python3 scripts/mutmut_corpus.py --mutmut-run --solution independent-d
                                                  # the same, mutant by mutant, by `mutmut run`

By default mutmut generates the mutants (its own `list_mutations` and
`mutate`, exactly the ones `mutmut run` tests) and the grader judges all of a
solution's mutants in one `autograder grade` run: `mutmut run` grades them
one process at a time, ~0.35 s each, ten minutes for the whole set.
`--mutmut-run` runs mutmut's own loop with the grader as its runner, to
cross-check. See docs/mutation-testing.md.
"""

import argparse
import ast
import contextlib
import io
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import tomllib

# A mutant is named as scripts/mutate.py names its own (this folder is on
# sys.path when the script runs).
from mutate import describe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUTMUT_VERSION = "2.5.1"
# mutmut 2 parses with parso, which has no `match` statement: a solution that
# uses one (independent-c) is mutated by mutmut 3 (libcst), from its own
# virtual environment since the two cannot share one.
MUTMUT3_VERSION = "3.8.1"
MUTMUT3_PYTHON = os.environ.get(
    "AUTOGRADER_MUTMUT3_PYTHON", os.path.join(ROOT, "target", "ci-tools", "mutmut3", "bin", "python")
)
# Run under MUTMUT3_PYTHON: the source on stdin, its mutants' sources out as JSON.
MUTMUT3_MUTANTS = """
import json, sys
from mutmut.mutation.file_mutation import create_mutations, deep_replace
module, mutations, _, _ = create_mutations("main.py", sys.stdin.read())
json.dump([deep_replace(module, m.original_node, m.mutated_node).code for m in mutations], sys.stdout)
"""
EQUIVALENT = os.path.join(ROOT, "tests", "fixtures", "mutation", "mutmut-equivalent.toml")
DOC = os.path.join(ROOT, "docs", "mutation-testing.md")
DOC_BEGIN = "<!-- mutmut figures: written by `python3 scripts/mutmut_corpus.py --write-doc` -->"
DOC_END = "<!-- end of mutmut figures -->"
SOLUTIONS = {
    "model-solution": os.path.join(ROOT, "submissions", "model-solution", "main.py"),
    **{
        name: os.path.join(ROOT, "tests", "fixtures", "solutions", name, "main.py")
        for name in sorted(os.listdir(os.path.join(ROOT, "tests", "fixtures", "solutions")))
        if os.path.isfile(os.path.join(ROOT, "tests", "fixtures", "solutions", name, "main.py"))
    },
}


NO_MUTMUT = 3  # the exit status when mutmut is missing or not the pinned version


def load_mutmut():
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("mutmut")
    except PackageNotFoundError:
        found = None
    if found != MUTMUT_VERSION:
        have = f"mutmut {found} is installed" if found else "mutmut is not installed"
        print(f"{have}; this needs python3 -m pip install mutmut=={MUTMUT_VERSION}", file=sys.stderr)
        sys.exit(NO_MUTMUT)
    import mutmut

    return mutmut


def check_mutmut3():
    """Stop (NO_MUTMUT) unless MUTMUT3_PYTHON has the pinned mutmut 3."""
    probe = "import importlib.metadata as m; print(m.version('mutmut'))"
    try:
        found = subprocess.run([MUTMUT3_PYTHON, "-c", probe], check=False, capture_output=True, text=True)
    except OSError:
        found = None
    if found is None or found.returncode != 0 or found.stdout.strip() != MUTMUT3_VERSION:
        print(
            f"no mutmut {MUTMUT3_VERSION} at {MUTMUT3_PYTHON} (python3 -m venv target/ci-tools/mutmut3"
            f" && target/ci-tools/mutmut3/bin/pip install mutmut=={MUTMUT3_VERSION})",
            file=sys.stderr,
        )
        sys.exit(NO_MUTMUT)


def mutmut3_sources(text):
    """mutmut 3's mutants of `text`, as whole sources."""
    proc = subprocess.run(
        [MUTMUT3_PYTHON, "-c", MUTMUT3_MUTANTS], check=True, input=text, capture_output=True, text=True
    )
    return json.loads(proc.stdout)


try:
    from parso import ParserSyntaxError
except ImportError:  # mutmut is missing: load_mutmut says so
    ParserSyntaxError = SyntaxError


def lessons_of(text, cases):
    """The lessons all of whose checkpoints the solution defines."""
    with open(os.path.join(cases, "course.toml"), "rb") as f:
        course = tomllib.load(f)
    defined = {n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)}
    return [
        lesson["id"]
        for lesson in course["lesson"]
        if all(c["function"] in defined for c in lesson.get("checkpoint", []))
    ]


def enclosing(tree, line):
    """The qualified name of the innermost function or class holding `line`."""
    best = "<module>"

    def visit(node, prefix):
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if child.lineno <= line <= child.end_lineno:
                    best = name
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return best


def raisers(tree):
    """Module functions whose whole body is one `raise` (`def _fail(msg): raise
    ValueError(msg)`)."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            if len(body) == 1 and isinstance(body[0], ast.Raise):
                names.add(node.name)
    return names


def without_raise_arguments(tree):
    """The module's AST dump with the arguments of every raised call, and of
    every call to a raiser, removed: what is left is all but the messages."""
    helpers = raisers(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            node.exc.args, node.exc.keywords = [], []
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers:
            node.args, node.keywords = [], []
    return ast.dump(tree)


def mutmut2_sources(mutmut, text):
    """mutmut 2's mutants of `text`: (its mutation id, the whole source)."""
    # mutmut prints parso's failure before raising it: the caller says it.
    with contextlib.redirect_stdout(io.StringIO()):
        ids = mutmut.list_mutations(mutmut.Context(source=text, filename="main.py"))
    for mid in ids:
        new, count = mutmut.mutate(mutmut.Context(source=text, mutation_id=mid, filename="main.py"))
        assert count == 1 and new != text, mid
        yield (mid.line, mid.index, mid.line_number), new


def mutants(sources, text):
    """The mutants of `text`, from (mutmut id, source) pairs: dicts with id,
    line, function, before, after, message_only, source."""
    tree = ast.parse(text)
    stripped = without_raise_arguments(ast.parse(text))
    out = []
    for n, (mid, new) in enumerate(sources, 1):
        assert new != text, mid
        line, before, after = describe(text, new)
        try:
            message_only = without_raise_arguments(ast.parse(new)) == stripped
        except SyntaxError:
            message_only = False
        out.append(
            {
                "id": f"m{n:04d}",
                "mutmut": mid,
                "line": line,
                "function": enclosing(tree, line),
                "before": before,
                "after": after,
                "message_only": message_only,
                "source": new,
            }
        )
    return out


def key(m):
    return (m["function"], m["before"], m["after"])


def grade_batch(autograder, cases, lessons, ms, text, tmp):
    """Grade the unmutated solution and every mutant in one run: {id: killed}."""
    folder = os.path.join(tmp, "mutants")
    os.makedirs(folder)
    for ident, source in [("m0000-original", text)] + [(m["id"], m["source"]) for m in ms]:
        os.makedirs(os.path.join(folder, ident))
        with open(os.path.join(folder, ident, "main.py"), "w", encoding="utf-8") as f:
            f.write(source)
    report = os.path.join(tmp, "report.json")
    cmd = [autograder, "grade", folder, "--cases", cases, "--main-py-only", "--json", report]
    cmd += ["--work-dir", os.path.join(tmp, "work"), "-q"]
    for lesson in lessons:
        cmd += ["--lesson", lesson]
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"autograder grade failed ({proc.returncode}):\n{proc.stderr}")
    with open(report, encoding="utf-8") as f:
        data = json.load(f)
    killed = {s["id"]: s["status"] != "graded" or s["percent"] < 100 for s in data["submissions"]}
    if killed.pop("m0000-original"):
        raise SystemExit("the unmutated solution does not score 100%: fix that first")
    return killed


def grade_by_mutmut_run(mutmut, autograder, cases, lessons, ms, text, tmp):
    """mutmut's own loop, the grader as its runner, one mutant at a time."""
    work = os.path.join(tmp, "mutmut")
    os.makedirs(work)
    with open(os.path.join(work, "main.py"), "w", encoding="utf-8") as f:
        f.write(text)
    runner = [autograder, "grade", ".", "--cases", cases, "--main-py-only", "--fail-under", "100", "-q"]
    for lesson in lessons:
        runner += ["--lesson", lesson]
    cmd = [sys.executable, "-m", "mutmut", "run", "--paths-to-mutate", "main.py", "--tests-dir", "."]
    cmd += ["--runner", shlex.join(runner), "--simple-output", "--no-progress"]
    subprocess.run(cmd, check=False, cwd=work, capture_output=True, text=True)
    db = sqlite3.connect(os.path.join(work, ".mutmut-cache"))
    status = {
        (line, index, number): s
        for line, index, number, s in db.execute(
            'SELECT Line.line, Mutant."index", Line.line_number, Mutant.status'
            " FROM Mutant JOIN Line ON Mutant.line = Line.id"
        )
    }
    missing = [m["id"] for m in ms if m["mutmut"] not in status]
    if missing:
        raise SystemExit(f"mutmut run left {len(missing)} mutants untested: {missing[:5]}")
    # The runner's exit 1 kills; mutmut counts a timeout as killed too.
    return {m["id"]: status[m["mutmut"]] != "bad_survived" for m in ms}


def load_equivalent(path):
    if not os.path.exists(path):
        return []
    with open(path, "rb") as f:
        return tomllib.load(f).get("equivalent", [])


def table(rows):
    lines = [
        "| solution | mutmut | lessons | mutants | killed | equivalent: message only | equivalent: listed | survivors |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    total = [0] * 5
    for r in rows:
        figures = [r["mutants"], r["killed"], r["message"], r["listed"], r["survivors"]]
        total = [a + b for a, b in zip(total, figures)]
        cells = [f"`{r['solution']}`", r["mutmut"], ", ".join(r["lessons"])] + [str(x) for x in figures]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("| **all** | | | " + " | ".join(f"**{x}**" for x in total) + " |")
    return "\n".join(lines)


def doc_block(rows, skipped):
    text = table(rows)
    for name, why in skipped:
        text += f"\n\n`{name}` is not mutated: {why}."
    return f"{DOC_BEGIN}\n{text}\n{DOC_END}"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", default=os.path.join(ROOT, "cases"))
    p.add_argument("--autograder", default=os.path.join(ROOT, "target", "debug", "autograder"))
    p.add_argument("--equivalent", default=EQUIVALENT, help="the reviewed list (TOML)")
    p.add_argument("--solution", action="append", help="only this solution (repeatable)")
    p.add_argument("--mutmut-run", action="store_true", help="grade by `mutmut run`, one mutant at a time")
    p.add_argument("--list", action="store_true", help="print the mutants and stop")
    p.add_argument("--check", action="store_true", help="exit 1 on an unexplained or stale survivor, or stale doc figures")
    p.add_argument("--write-doc", action="store_true", help="write the figures into docs/mutation-testing.md")
    args = p.parse_args(argv)
    mutmut = load_mutmut()
    if not args.mutmut_run:
        check_mutmut3()  # before minutes of grading, not after
    names = args.solution or list(SOLUTIONS)
    equivalent = load_equivalent(args.equivalent)
    listed = {(e["solution"], e["function"], e["before"], e["after"]): e for e in equivalent}
    used = set()
    rows, skipped, problems = [], [], []
    for name in names:
        with open(SOLUTIONS[name], encoding="utf-8") as f:
            text = f.read()
        started = time.monotonic()
        try:
            ms, tool = mutants(list(mutmut2_sources(mutmut, text)), text), MUTMUT_VERSION
        except ParserSyntaxError:
            # parso has no `match` statement: mutmut 3 (libcst) mutates this one.
            if args.mutmut_run:
                skipped.append((name, f"mutmut {MUTMUT_VERSION} cannot parse it (a match statement)"))
                print(f"{name}: skipped, {skipped[-1][1]}")
                continue
            ms = mutants([(None, s) for s in mutmut3_sources(text)], text)
            tool = MUTMUT3_VERSION
        lessons = lessons_of(text, args.cases)
        if args.list:
            for m in ms:
                print(f"{name} {m['id']} L{m['line']} {m['function']}: {m['before']} => {m['after']}")
            continue
        tmp = tempfile.mkdtemp(prefix=f"autograder-mutmut-{name}-")
        try:
            if args.mutmut_run:
                killed = grade_by_mutmut_run(mutmut, args.autograder, args.cases, lessons, ms, text, tmp)
            else:
                killed = grade_batch(args.autograder, args.cases, lessons, ms, text, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        row = {"solution": name, "mutmut": tool, "lessons": lessons, "mutants": len(ms)}
        row.update(killed=0, message=0, listed=0)
        survivors = []
        for m in ms:
            k = (name, *key(m))
            if killed[m["id"]]:
                row["killed"] += 1
                if k in listed:
                    problems.append(f"listed as equivalent but killed: {name} {m['function']}: {m['before']} => {m['after']}")
            elif m["message_only"]:
                row["message"] += 1
            elif k in listed:
                row["listed"] += 1
                used.add(k)
            else:
                survivors.append(m)
        row["survivors"] = len(survivors)
        rows.append(row)
        for m in survivors:
            print(f"SURVIVED {name} {m['id']} L{m['line']} {m['function']}: {m['before']} => {m['after']}")
        print(
            f"{name}: {len(ms)} mutants, {row['killed']} killed, {row['message']} equivalent by rule (message only),"
            f" {row['listed']} equivalent listed, {len(survivors)} survived ({time.monotonic() - started:.0f} s)"
        )
        problems += [f"survived: {name} {m['function']}: {m['before']} => {m['after']}" for m in survivors]
    if args.list:
        return 0
    stale = [k for k in listed if k[0] in {r["solution"] for r in rows} and k not in used]
    problems += [f"listed as equivalent but not a survivor: {' '.join(k[:2])}: {k[2]} => {k[3]}" for k in stale]
    block = doc_block(rows, skipped)
    with open(DOC, encoding="utf-8") as f:
        doc = f.read()
    start, end = doc.find(DOC_BEGIN), doc.find(DOC_END)
    if start < 0 or end < 0:
        raise SystemExit(f"{DOC} has no {DOC_BEGIN} ... {DOC_END} block")
    current = doc[start : end + len(DOC_END)]
    print(table(rows))
    # The figures are those of the default run over every solution.
    whole = not args.solution and not args.mutmut_run
    if args.write_doc and whole:
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(doc[:start] + block + doc[end + len(DOC_END) :])
    elif args.check and whole and current != block:
        problems.append(f"the figures in {os.path.relpath(DOC, ROOT)} are not this run's: run with --write-doc")
    for problem in problems:
        print(f"note: {problem}")
    return 1 if args.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
