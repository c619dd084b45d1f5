#!/usr/bin/env python3
"""Mutation analysis of the case corpus (stdlib only): the mistakes mutmut
cannot make.

mutmut (scripts/mutmut_corpus.py) changes one token at a time: a number plus
one, `<` for `<=`, `and` for `or`, `in` for `not in`, `break` for `continue`,
a string wrapped in XX, a value made None. This script generates the
realistic mistakes beyond that, on a correct solution: a limit one less, a
dropped guard, call, hook, default, copy or `except`, `isinstance` for
`type(...) is`, `match` for `fullmatch`, a regular expression's class or
bound, one operand of a condition or one element of a literal dropped, exact
keys weakened, bytes for code points, and the course-specific text rules
(TEXT_RULES), grades them all in one `autograder grade` run and lists the
survivors: mutants that still score 100% on every checkpoint. A survivor is
either an equivalent mutant (listed, with its reason, in the equivalence
file) or a gap in the corpus.

    python3 scripts/mutate.py                      # generate, grade, report
    python3 scripts/mutate.py --check              # exit 1 on an unexplained survivor
    python3 scripts/mutate.py --list               # print the mutants only

Mutants are written to a temporary folder (or --out) and never committed.
See docs/mutation-testing.md.
"""

import argparse
import ast
import copy
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SOURCE = os.path.join(ROOT, "submissions", "model-solution", "main.py")
DEFAULT_EQUIVALENT = os.path.join(ROOT, "tests", "fixtures", "mutation", "equivalent.json")

# Solution-specific rewrites a generic AST operator cannot express, as
# (operator, old text, new text); each is skipped when its text does not occur.
TEXT_RULES = [
    # The caller's own evidence dict inside the new ticket.
    ("return-input-evidence", '{"start": start, "end": end, "text": quote}', "evidence"),
    # Results in arrival order instead of call order.
    ("arrival-order", "for cid in names]", "for cid in answers]"),
    # The quote located with str.find: a quote that also occurs earlier fails.
    ("find-quote", "quote != source[start:end]", "source.find(quote) != start or len(quote) != end - start"),
    # Labels compared case-insensitively.
    ("label-lower", "label not in LABELS", "label.lower() not in LABELS"),
    # Labels looked up in a set without a type check: a list label raises TypeError.
    ("label-set", "not isinstance(label, str) or label not in LABELS", "label not in set(LABELS)"),
    # Tool names looked up in a dict without a type check.
    (
        "name-dict",
        'not isinstance(name, str) or name not in ("multiply", "stock")',
        'name not in {"multiply": 1, "stock": 2}',
    ),
    # The ticket id compared as text: 1 passes for "1".
    ("id-as-text", 'value["id"] != request_id', 'str(value["id"]) != request_id'),
    # Only the product is bounded, not each factor.
    (
        "product-only",
        'all(_exact_int(arguments[k], MAX_FACTOR) for k in ("x", "y"))',
        (
            '(all(type(arguments[k]) is int for k in ("x", "y"))'
            ' and abs(arguments["x"] * arguments["y"]) <= MAX_PRODUCT)'
        ),
    ),
    # Only objects are walked: arrays are neither counted nor searched.
    (
        "skip-arrays",
        "value.values() if isinstance(value, dict) else value",
        "value.values() if isinstance(value, dict) else []",
    ),
    # Depth also measured by counting bracket characters in the raw text,
    # brackets inside strings included.
    (
        "text-depth",
        "    _check_tree(value, 1)\n",
        (
            "    _check_tree(value, 1)\n"
            "    _d = 0\n"
            "    for _ch in text:\n"
            "        _d += (_ch in '[{') - (_ch in ']}')\n"
            "        if _d > MAX_DEPTH:\n"
            "            raise ValueError('too deep')\n"
        ),
    ),
    # The calls are trusted: only their ids and names are read.
    ("trust-calls", "checked = validate_tool_call(call)", "checked = call"),
    # Labels matched as substrings of one string.
    ("label-substring", "label not in LABELS", 'label not in " ".join(LABELS)'),
    # evidence None accepted for every label.
    ("evidence-none-any-label", 'if label == "onduidelijk":', 'if label == "onduidelijk" or evidence is None:'),
    # Over-strict: ids must be identifiers (no leading digit).
    (
        "id-isidentifier",
        "not CALL_ID.fullmatch(call_id)",
        'not CALL_ID.fullmatch(call_id) or not call_id.replace("-", "_").isidentifier()',
    ),
    # Over-strict: a blank quote refused.
    ("blank-quote", "quote != source[start:end]", "quote != source[start:end] or not quote.strip()"),
    # The id of an unclear ticket never compared (two edits).
    (
        "unclear-id-unchecked",
        'if value["id"] != request_id:',
        'if value["label"] != "onduidelijk" and value["id"] != request_id:',
    ),
    # Lesson 04: tool names compared case-insensitively (two edits).
    (
        "tool-name-lower",
        ('name not in ("multiply", "stock"):\n        raise ValueError(f"unknown tool', "    _check_arguments(name, input)\n"),
        ('name.lower() not in ("multiply", "stock"):\n        raise ValueError(f"unknown tool', "    name = name.lower()\n    _check_arguments(name, input)\n"),
    ),
    # Lesson 04: a failing tool raises out of run_tools instead of becoming an error result.
    (
        "tool-error-raises",
        (
            '        try:\n            content = json.dumps(run_tool(part["name"], part["input"]))\n'
            '            status = "success"\n        except ValueError as e:\n'
            '            content = f"Error: {e}"\n            status = "error"\n'
        ),
        '        content = json.dumps(run_tool(part["name"], part["input"]))\n        status = "success"\n',
    ),
    # Lesson 04: a result's content as str(r), or as compact JSON, instead of json.dumps(r).
    ("content-str", "json.dumps(run_tool(", "str(run_tool("),
    (
        "content-compact",
        'json.dumps(run_tool(part["name"], part["input"]))',
        'json.dumps(run_tool(part["name"], part["input"]), separators=(",", ":"))',
    ),
    # Lesson 04: an error result with an empty content; failing tools not answered at all.
    ("error-content-empty", 'content = f"Error: {e}"', 'content = ""'),
    (
        "skip-error-results",
        "        results.append(\n            {\n                \"type\": \"tool_result\",",
        (
            "        if status == \"error\":\n            continue\n"
            "        results.append(\n            {\n                \"type\": \"tool_result\","
        ),
    ),
    # Lesson 04: part types compared case-insensitively.
    ('type-lower-tool-use', 'if part["type"] != "tool_use":', 'if part["type"].lower() != "tool_use":'),
    ('type-lower-tool-result', 'if part["type"] != "tool_result":', 'if part["type"].lower() != "tool_result":'),
    # Lesson 04: rows in the order results arrived; unanswered requests left out (two edits).
    (
        "rows-in-answer-order",
        'for u in uses]',
        'for u in sorted(uses, key=lambda u: list(statuses).index(u["id"]))]',
    ),
    (
        "unanswered-skipped",
        ('    if len(statuses) != len(uses):\n        raise ValueError("a tool_use has no tool_result")\n', 'for u in uses]'),
        ('', 'for u in uses if u["id"] in statuses]'),
    ),
    # Lesson 05: the schema's integer checked with isinstance (True passes).
    ("schema-isinstance-int", "    return type(value) is int\n", "    return isinstance(value, int)\n"),
    # Lesson 05: the enum checked only for a value of the right type.
    ("enum-elif", '        if "enum" in spec and arg_value not in spec["enum"]:', '        elif "enum" in spec and arg_value not in spec["enum"]:'),
    # Lesson 05: the enum value shown with repr ('\'x\'' quoted twice) instead of str.
    ("enum-repr", "'{arg_value}' not in", "'{arg_value!r}' not in"),
    # Lesson 05: tool names matched case-insensitively.
    ("tool-schema-lower", "    if tool_name not in TOOL_SCHEMAS:\n", "    tool_name = tool_name.lower()\n    if tool_name not in TOOL_SCHEMAS:\n"),
    # Lesson 05: traversal judged after os.path.normpath.
    ("traversal-normpath", '    if ".." in path or path.startswith("/")', '    path = __import__("os").path.normpath(path) if path else path\n    if ".." in path or path.startswith("/")'),
    # Lesson 05: only `../` (a parent step) refused, not `..` anywhere.
    ("dotdot-slash-only", '    if ".." in path or', '    if "../" in path or path == ".." or path.endswith("/..") or'),
    # Lesson 05: paths looked up case-insensitively, or NFC-normalised.
    ("path-lower", "    if path not in FILE_SYSTEM:", "    path = {k.lower(): k for k in FILE_SYSTEM}.get(path.lower(), path)\n    if path not in FILE_SYSTEM:"),
    ("path-nfc", "    if path not in FILE_SYSTEM:", "    path = __import__('unicodedata').normalize('NFC', path)\n    if path not in FILE_SYSTEM:"),
    # Lesson 05: size in code points; lines counted with splitlines.
    ("size-in-chars", '"size_bytes": len(content.encode("utf-8")),', '"size_bytes": len(content),'),
    ("lines-splitlines", '"lines": content.count("\\n") + 1,', '"lines": len(content.splitlines()),'),
    # Lesson 05: Rust-like or ASCII strip; casefold instead of lower; strip before lower.
    ("strip-ascii", "    key = city.lower().strip()\n", '    key = city.lower().strip(" \\t\\n\\r\\x0b\\x0c")\n'),
    ("strip-ascii-query", "    key = query.lower().strip()\n", '    key = query.lower().strip(" \\t\\n\\r\\x0b\\x0c")\n'),
    ("city-casefold", "    key = city.lower().strip()\n", "    key = city.casefold().strip()\n"),
    ("query-casefold", "    key = query.lower().strip()\n", "    key = query.casefold().strip()\n"),
    ("city-no-strip", "    key = city.lower().strip()\n", "    key = city.lower()\n"),
    ("query-no-lower", "    key = query.lower().strip()\n", "    key = query.strip()\n"),
    # Lesson 05: suggestions by the city's own first letters, not the key's.
    ("suggest-from-city", "c.startswith(key[:3])", "c.startswith(city[:3])"),
    # Lesson 05: fahrenheit keeps temp_c; temp_f not rounded; the city not added.
    ("keep-temp-c", '        del result["temp_c"]\n', ""),
    ("temp-f-unrounded", 'round(result["temp_c"] * 9 / 5 + 32, 1)', 'result["temp_c"] * 9 / 5 + 32'),
    ("temp-f-int", 'round(result["temp_c"] * 9 / 5 + 32, 1)', 'round(result["temp_c"] * 9 / 5 + 32)'),
    # Lesson 05: only db_key in key, or only key in db_key.
    ("search-one-way", "if db_key in key or key in db_key:", "if db_key in key:"),
    ("search-other-way", "if db_key in key or key in db_key:", "if key and key in db_key:"),
    # Lesson 05: a negative max_results clamped to 0.
    ("max-results-clamped", "results[:max_results]", "results[:max(max_results, 0)]"),
    # Lesson 05: arguments validated before the unknown-tool check; disabled before validation.
    (
        "validate-before-unknown",
        '    if name not in TOOL_SCHEMAS:\n        return {"error": True, "message": f"Unknown tool: {name}", "code": "UNKNOWN_TOOL"}\n    errors = validate_tool_arguments(name, arguments)\n    if errors:\n',
        '    errors = validate_tool_arguments(name, arguments)\n    if errors and name in TOOL_SCHEMAS:\n',
    ),
    (
        "disabled-before-validation",
        '    if name in DISABLED_TOOLS:\n        return {"error": True, "message": f"Tool \'{name}\' is disabled here.", "code": "DISABLED"}\n',
        "",
    ),
    # Lesson 05: the final empty reply not counted; every reply checked up front;
    # arguments not copied; content as str() instead of json.dumps.
    ("iterations-skip-answer", '"iterations": i + 1, "stop": "done"}', '"iterations": i, "stop": "done"}'),
    ("check-all-replies", "    messages = []\n    for i in range(max_iterations):", "    for reply in turns:\n        _check_reply(reply)\n    messages = []\n    for i in range(max_iterations):"),
    ("arguments-not-copied", '"arguments": copy.deepcopy(call["arguments"])}', '"arguments": call["arguments"]}'),
    ("content-str-loop", '"content": json.dumps(result)}', '"content": str(result)}'),
    ("content-unicode", '"content": json.dumps(result)}', '"content": json.dumps(result, ensure_ascii=False)}'),
    # Keys checked after parsing, on the root object only (two edits).
    (
        "keys-top-only",
        ('key.encode("utf-8")  #', '        raise ValueError("the JSON value must be an object")\n'),
        ('pass  #', '        raise ValueError("the JSON value must be an object")\n    for k in value:\n        k.encode("utf-8")\n'),
    ),
]


class Source:
    """The solution text with AST node spans in characters (ast gives
    UTF-8 byte columns)."""

    def __init__(self, text):
        self.text = text
        self.lines = text.splitlines(keepends=True)
        self.starts = []
        pos = 0
        for line in self.lines:
            self.starts.append(pos)
            pos += len(line)

    def pos(self, lineno, col):
        line = self.lines[lineno - 1]
        return self.starts[lineno - 1] + len(line.encode("utf-8")[:col].decode("utf-8"))

    def span(self, node):
        return self.pos(node.lineno, node.col_offset), self.pos(node.end_lineno, node.end_col_offset)

    def segment(self, node):
        s, e = self.span(node)
        return self.text[s:e]

    def replace(self, node, new):
        s, e = self.span(node)
        return self.text[:s] + new + self.text[e:]

    def replace_range(self, s, e, new):
        return self.text[:s] + new + self.text[e:]


def expr(node):
    """A node as source text that can stand anywhere an expression can."""
    return "(" + ast.unparse(node) + ")"


def name_of(func):
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def walk(tree):
    """All nodes except those inside f-strings (whose positions 3.11 does not
    give reliably)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.JoinedStr):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def is_docstring(node, parents):
    parent = parents.get(node)
    return isinstance(parent, ast.Expr) and isinstance(node, ast.Constant) and isinstance(node.value, str)


# ----------------------------------------------------------------------------
# Operators: each yields (operator, new source text).
# ----------------------------------------------------------------------------


def op_numbers(src, tree, parents):
    """One less in every integer literal, and 10**12 +- 1 as a whole (mutmut
    adds one to each literal, and to 10 and 12 apart)."""
    for node in walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and all(
            isinstance(x, ast.Constant) and type(x.value) is int for x in (node.left, node.right)
        ):
            seg = src.segment(node)
            yield "number", src.replace(node, f"({seg} - 1)")
            yield "number", src.replace(node, f"({seg} + 1)")
            continue
        if isinstance(node, ast.Constant) and type(node.value) is int:
            parent = parents.get(node)
            if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Pow):
                continue
            yield "number", src.replace(node, str(node.value - 1))


QUANTIFIER = re.compile(r"\{(\d+),(\d+)\}")


def regex_patterns(tree):
    """String constants passed as the pattern of re.compile/fullmatch/match/search."""
    for node in walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in ("compile", "fullmatch", "match", "search")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node


def op_regex(src, tree, parents):
    """Quantifier bounds off by one, a character class missing one item,
    re.ASCII dropped, \\w for the explicit class, re.IGNORECASE added."""
    for call in regex_patterns(tree):
        pat = call.args[0]
        seg = src.segment(pat)
        s, _ = src.span(pat)
        for m in QUANTIFIER.finditer(seg):
            for group in (1, 2):
                n = int(m.group(group))
                for v in (n - 1, n + 1):
                    if v < 0:
                        continue
                    a, b = m.span(group)
                    yield "regex-count", src.replace_range(s + a, s + b, str(v))
        for m in re.finditer(r"\[([^\]]+)\]", seg):
            body = m.group(1)
            items = re.findall(r"\\.|.-.(?!$)|.", body)
            if len(items) < 2:
                continue
            for i in range(len(items)):
                rest = "".join(items[:i] + items[i + 1 :])
                a, b = m.span(1)
                yield "regex-class-item", src.replace_range(s + a, s + b, rest)
        flags = [a for a in call.args[1:]] + [k.value for k in call.keywords if k.arg == "flags"]
        ascii_flag = [f for f in flags if "ASCII" in src.segment(f) or src.segment(f).endswith(".A")]
        if ascii_flag:
            f = ascii_flag[0]
            fs, fe = src.span(f)
            # drop ", re.ASCII" including the comma before it
            before = src.text.rfind(",", 0, fs)
            yield "drop-ascii", src.replace_range(before, fe, "")
        if "a-zA-Z0-9_" in seg:
            new_pat = seg.replace("a-zA-Z0-9_", "\\w")
            text = src.replace(pat, new_pat)
            if ascii_flag:
                f = ascii_flag[0]
                fs, fe = src.span(f)
                before = src.text.rfind(",", 0, fs)
                # the flag sits after the pattern: recompute on the new text
                delta = len(new_pat) - len(seg)
                text = text[: before + delta] + text[fe + delta :]
            yield "unicode-word", text
        if "0-9" in seg:
            # \d without re.ASCII: Unicode digits pass.
            text = src.replace(pat, seg.replace("0-9", "\\d"))
            if ascii_flag:
                f = ascii_flag[0]
                delta = len(seg.replace("0-9", "\\d")) - len(seg)
                fs, fe = src.span(f)
                before = src.text.rfind(",", 0, fs)
                text = text[: before + delta] + text[fe + delta :]
            yield "unicode-digit", text
        if "a-zA-Z" in seg:
            # [a-z...] with re.IGNORECASE instead of re.ASCII: Unicode case
            # folding lets the Kelvin sign match k.
            text = src.replace(pat, seg.replace("a-zA-Z", "a-z"))
            if ascii_flag:
                f = ascii_flag[0]
                delta = len(seg.replace("a-zA-Z", "a-z")) - len(seg)
                fs, fe = src.span(f)
                text = text[: fs + delta] + "re.IGNORECASE" + text[fe + delta :]
                yield "ignorecase-unicode", text
        _, e = src.span(call.args[-1] if not call.keywords else call.keywords[-1].value)
        yield "ignorecase", src.replace_range(e, e, ", re.IGNORECASE" if not flags else " | re.IGNORECASE")


def op_fullmatch(src, tree, parents):
    """fullmatch -> match / search, and match with a `$` anchor."""
    for node in walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "fullmatch":
            _, e = src.span(node)
            for new in ("match", "search"):
                yield "fullmatch", src.replace_range(e - len("fullmatch"), e, new)
    compiled = {}
    for node in walk(tree):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and node.value in set(regex_patterns(node))
        ):
            compiled[node.targets[0].id] = node.value.args[0]
    for node in walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "fullmatch"
            and isinstance(node.value, ast.Name)
            and node.value.id in compiled
        ):
            pat = compiled[node.value.id]
            seg = src.segment(pat)
            if seg[-1] in "\"'" and not seg.endswith("$" + seg[-1]):
                _, e = src.span(node)
                _, pe = src.span(pat)
                edits = sorted([(e - len("fullmatch"), e, "match"), (pe - 1, pe - 1, "$")], reverse=True)
                text = src.text
                for a, b, new in edits:
                    text = text[:a] + new + text[b:]
                yield "match-dollar", text


def op_chain_links(src, tree, parents):
    """One link of a chained comparison dropped (mutmut swaps `<` and `<=`
    itself)."""
    for node in walk(tree):
        if isinstance(node, ast.Compare) and len(node.ops) >= 2:
            operands = [node.left] + node.comparators
            # drop the first link, then the last
            first = ast.Compare(left=operands[1], ops=node.ops[1:], comparators=operands[2:])
            last = ast.Compare(left=operands[0], ops=node.ops[:-1], comparators=operands[1:-1])
            yield "chain-link", src.replace(node, expr(first))
            yield "chain-link", src.replace(node, expr(last))


def op_type_is(src, tree, parents):
    """type(x) is T -> isinstance(x, T) (bools pass as ints)."""
    for node in walk(tree):
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.Is, ast.IsNot))
            and isinstance(node.left, ast.Call)
            and name_of(node.left.func) == "type"
            and len(node.left.args) == 1
        ):
            test = f"isinstance({src.segment(node.left.args[0])}, {src.segment(node.comparators[0])})"
            if isinstance(node.ops[0], ast.IsNot):
                test = "not " + test
            yield "type-is", src.replace(node, f"({test})")


def op_none(src, tree, parents):
    """x is None -> not x; x is not None -> x (a falsy check)."""
    for node in walk(tree):
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.Is, ast.IsNot))
            and isinstance(node.comparators[0], ast.Constant)
            and node.comparators[0].value is None
        ):
            left = src.segment(node.left)
            new = f"(not {left})" if isinstance(node.ops[0], ast.Is) else f"({left})"
            yield "none-falsy", src.replace(node, new)


def op_boolops(src, tree, parents):
    """One operand of `and`/`or` dropped (mutmut swaps `and` and `or` itself)."""
    for node in walk(tree):
        if not isinstance(node, ast.BoolOp):
            continue
        for i in range(len(node.values)):
            rest = node.values[:i] + node.values[i + 1 :]
            new = rest[0] if len(rest) == 1 else ast.BoolOp(op=node.op, values=rest)
            yield "drop-operand", src.replace(node, expr(new))


def op_statements(src, tree, parents):
    """A raise (a guard) or a bare call statement replaced by `pass`; an
    exception handler that never catches."""
    for node in walk(tree):
        if isinstance(node, ast.Raise):
            yield "drop-raise", src.replace(node, "pass")
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            yield "drop-call", src.replace(node, "pass")
        elif isinstance(node, ast.ExceptHandler) and node.type is not None:
            yield "drop-except", src.replace(node.type, "ZeroDivisionError")


def op_copies(src, tree, parents):
    """dict(x) / list(x) / copy.copy(x) / copy.deepcopy(x) -> x: the
    argument's own object is returned."""
    for node in walk(tree):
        if (
            isinstance(node, ast.Call)
            and name_of(node.func) in ("dict", "list", "copy", "deepcopy")
            and len(node.args) == 1
            and not node.keywords
        ):
            yield "no-copy", src.replace(node, expr(node.args[0]))


def op_calls(src, tree, parents):
    """abs dropped, bytes <-> code points, isfinite weakened, .get with a
    default, a keyword argument (a hook) dropped, json.loads loosened."""
    for node in walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fname = name_of(node.func)
        if fname == "abs" and len(node.args) == 1:
            yield "drop-abs", src.replace(node, expr(node.args[0]))
        if fname == "len" and len(node.args) == 1:
            arg = node.args[0]
            if isinstance(arg, ast.Call) and name_of(arg.func) == "encode" and isinstance(arg.func, ast.Attribute):
                yield "len-chars", src.replace(node, f"len({src.segment(arg.func.value)})")
            elif isinstance(arg, ast.Name) and arg.id in str_names(node, parents):
                yield "len-bytes", src.replace(node, f'len({arg.id}.encode("utf-8"))')
        if fname == "isfinite" and len(node.args) == 1:
            a = src.segment(node.args[0])
            yield "isfinite", src.replace(node, f"(not math.isnan({a}))")
            yield "isfinite", src.replace(node, f"(not math.isinf({a}))")
        if fname == "get" and isinstance(node.func, ast.Attribute) and len(node.args) == 1:
            s, e = src.span(node.args[0])
            yield "get-default", src.replace_range(e, e, ", 0")
        for kw in node.keywords:
            if kw.arg is None:
                continue
            s, _ = src.span(kw.value)
            kw_start = src.text.rfind(kw.arg, 0, s)
            _, e = src.span(kw.value)
            # remove through the following comma, if any
            rest = src.text[e:]
            m = re.match(r"\s*,", rest)
            end = e + (m.end() if m else 0)
            yield "drop-keyword", src.replace_range(kw_start, end, "")
        if fname == "loads" and node.args:
            first = node.args[0]
            yield "strip-input", src.replace(first, f"{src.segment(first)}.strip()")
            yield "bytes-input", src.replace(first, f'{src.segment(first)}.encode("utf-8")')
            e = src.span(node)[1] - 1  # the closing parenthesis
            sep = "" if src.text[:e].rstrip().endswith((",", "(")) else ", "
            yield "json-lenient", src.replace_range(e, e, f"{sep}strict=False")
            kws = ", ".join(src.segment(k) for k in node.keywords)
            yield "raw-decode", src.replace(
                node, f"json.JSONDecoder({kws}).raw_decode({src.segment(first)})[0]"
            )


def str_names(node, parents):
    """Names the enclosing function checks with isinstance(name, str)."""
    while node is not None and not isinstance(node, ast.FunctionDef):
        node = parents.get(node)
    if node is None:
        return set()
    return {
        n.args[0].id
        for n in ast.walk(node)
        if isinstance(n, ast.Call)
        and name_of(n.func) == "isinstance"
        and len(n.args) == 2
        and isinstance(n.args[0], ast.Name)
        and isinstance(n.args[1], ast.Name)
        and n.args[1].id == "str"
    }


def op_isinstance(src, tree, parents):
    """A type dropped from isinstance(x, (A, B)); a tuple accepted as a list."""
    for node in walk(tree):
        if not (isinstance(node, ast.Call) and name_of(node.func) == "isinstance" and len(node.args) == 2):
            continue
        types = node.args[1]
        if isinstance(types, ast.Tuple) and len(types.elts) >= 2:
            for i in range(len(types.elts)):
                rest = types.elts[:i] + types.elts[i + 1 :]
                new = rest[0] if len(rest) == 1 else ast.Tuple(elts=rest, ctx=ast.Load())
                yield "isinstance-type", src.replace(types, expr(new))
        elif isinstance(types, ast.Name) and types.id == "list":
            yield "isinstance-type", src.replace(types, "(list, tuple)")


def op_keysets(src, tree, parents):
    """Keys exactly K -> at least K / at most K."""
    for node in walk(tree):
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.NotEq, ast.Eq))
            and isinstance(node.comparators[0], ast.Set)
        ):
            left, right = src.segment(node.left), src.segment(node.comparators[0])
            neg = "not " if isinstance(node.ops[0], ast.NotEq) else ""
            yield "keys-superset", src.replace(node, f"({neg}{right} <= {left})")
            yield "keys-subset", src.replace(node, f"({neg}{left} <= {right})")


def op_literals(src, tree, parents):
    """One element dropped from a literal tuple, list or set of strings
    (a label, a key, an argument name)."""
    for node in walk(tree):
        if isinstance(node, (ast.Tuple, ast.Set, ast.List)) and len(node.elts) >= 2:
            if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
                continue
            for i in range(len(node.elts)):
                new = copy.deepcopy(node)
                del new.elts[i]
                yield "drop-element", src.replace(node, expr(new))


def op_defaults(src, tree, parents):
    """A parameter's default value dropped."""
    for node in walk(tree):
        if isinstance(node, ast.FunctionDef):
            args = node.args.args
            for arg, default in zip(args[len(args) - len(node.args.defaults) :], node.args.defaults):
                _, a = src.span(arg)
                _, d = src.span(default)
                yield "drop-default", src.replace_range(a, d, "")


def op_text_rules(src, tree, parents):
    for op, old, new in TEXT_RULES:
        if isinstance(old, tuple):
            # Several edits, each at the first place its text occurs.
            text = src.text
            if all(o in text for o in old):
                for o, n in zip(old, new):
                    text = text.replace(o, n, 1)
                yield op, text
            continue
        start = src.text.find(old)
        while start != -1:
            yield op, src.replace_range(start, start + len(old), new)
            start = src.text.find(old, start + 1)


OPERATORS = [
    op_numbers,
    op_regex,
    op_fullmatch,
    op_chain_links,
    op_type_is,
    op_none,
    op_boolops,
    op_statements,
    op_copies,
    op_calls,
    op_keysets,
    op_isinstance,
    op_literals,
    op_defaults,
    op_text_rules,
]


def describe(old, new):
    """(first changed line, old lines, new lines): the changed lines only,
    joined by ` / `; without the line number they identify a mutant across
    unrelated edits of the solution."""
    a, b = old.splitlines(), new.splitlines()
    first, before, after = None, [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        first = first or i1 + 1
        before += [x.strip() for x in a[i1:i2]]
        after += [x.strip() for x in b[j1:j2]]
    return first, " / ".join(before), " / ".join(after)


def mutants(text):
    """Every distinct, compilable mutant: dicts with id, op, line, before, after, source."""
    src = Source(text)
    tree = ast.parse(text)
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    seen = {text}
    out = []
    for operator in OPERATORS:
        for op, new in operator(src, tree, parents):
            if new in seen:
                continue
            seen.add(new)
            try:
                compile(new, "main.py", "exec")
            except SyntaxError as e:
                raise SystemExit(f"internal error: operator {op} produced invalid Python: {e}\n{describe(text, new)}")
            line, before, after = describe(text, new)
            out.append({"op": op, "line": line, "before": before, "after": after, "source": new})
    for i, m in enumerate(out, 1):
        m["id"] = f"m{i:03d}-{m['op']}"
    return out


def key(m):
    return f"{m['op']}: {m['before']} => {m['after']}"


def grade(out_dir, autograder, cases, work_dir):
    report = os.path.join(work_dir, "report.json")
    cmd = [autograder, "grade", out_dir, "--cases", cases, "--json", report, "--work-dir", work_dir, "-q"]
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"autograder grade failed ({proc.returncode}):\n{proc.stderr}")
    with open(report, encoding="utf-8") as f:
        data = json.load(f)
    result = {}
    for sub in data["submissions"]:
        failed = [c["id"] for c in sub["checkpoints"] if not c["passed"]]
        result[sub["id"]] = (sub["status"], failed)
    return result


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--source", default=DEFAULT_SOURCE, help="the correct solution to mutate")
    p.add_argument("--out", help="write the mutants here (default: a temporary folder, removed afterwards)")
    p.add_argument("--cases", default=os.path.join(ROOT, "cases"))
    p.add_argument("--autograder", default=os.path.join(ROOT, "target", "debug", "autograder"))
    p.add_argument(
        "--equivalent", default=DEFAULT_EQUIVALENT, help="JSON list of {mutant, reason} (an empty file: none)"
    )
    p.add_argument("--list", action="store_true", help="print the mutants and stop")
    p.add_argument("--check", action="store_true", help="exit 1 when a survivor is not a known equivalent mutant")
    args = p.parse_args(argv)

    with open(args.source, encoding="utf-8") as f:
        text = f.read()
    ms = mutants(text)
    if args.list:
        for m in ms:
            print(f"{m['id']}  L{m['line']}  {key(m)}")
        print(f"{len(ms)} mutants")
        return 0

    equivalent = {}
    if os.path.exists(args.equivalent):
        with open(args.equivalent, encoding="utf-8") as f:
            listed = f.read().strip()
            for entry in json.loads(listed) if listed else []:
                equivalent[entry["mutant"]] = entry["reason"]

    tmp = tempfile.mkdtemp(prefix="autograder-mutants-")
    out_dir = args.out or os.path.join(tmp, "mutants")
    try:
        if os.path.exists(out_dir):
            shutil.rmtree(out_dir)
        os.makedirs(out_dir)
        # The unmutated solution rides along: it must score 100%.
        os.makedirs(os.path.join(out_dir, "m000-original"))
        with open(os.path.join(out_dir, "m000-original", "main.py"), "w", encoding="utf-8") as f:
            f.write(text)
        for m in ms:
            d = os.path.join(out_dir, m["id"])
            os.makedirs(d)
            with open(os.path.join(d, "main.py"), "w", encoding="utf-8") as f:
                f.write(m["source"])
        results = grade(out_dir, args.autograder, args.cases, os.path.join(tmp, "work"))
    finally:
        if not args.out:
            shutil.rmtree(tmp, ignore_errors=True)

    status, failed = results.get("m000-original", ("missing", ["?"]))
    if status != "graded" or failed:
        print(f"the unmutated solution does not score 100% (failed: {failed}); fix that first", file=sys.stderr)
        return 2

    survivors, explained, killed = [], [], 0
    for m in ms:
        status, failed = results[m["id"]]
        if status == "graded" and not failed:
            (explained if key(m) in equivalent else survivors).append(m)
        else:
            killed += 1
    known = {key(m) for m in ms}
    stale = [k for k in equivalent if k not in known]
    wrongly_equivalent = [
        key(m) for m in ms if key(m) in equivalent and results[m["id"]][1]
    ]

    for m in explained:
        print(f"equivalent  {m['id']}  L{m['line']}  {key(m)}\n            because {equivalent[key(m)]}")
    for m in survivors:
        print(f"SURVIVED    {m['id']}  L{m['line']}  {key(m)}")
    for k in wrongly_equivalent:
        print(f"note: listed as equivalent but killed: {k}")
    for k in stale:
        print(f"note: listed as equivalent but no longer generated: {k}")
    non_equivalent = len(ms) - len(explained)
    print(
        f"{len(ms)} mutants, {len(explained)} equivalent, {killed} killed, "
        f"{len(survivors)} survived: mutation score {killed}/{non_equivalent}"
        f" = {100.0 * killed / max(non_equivalent, 1):.1f}%"
    )
    if args.check and (survivors or wrongly_equivalent or stale):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
