"""Tagged JSON <-> Python values: the Python half of src/value/tagged.rs.

Plain JSON carries None, bools, text without surrogates, lists, ints that fit in
an i64 and finite floats. Everything else is a one-key object whose key starts
with "$": $int, $float, $str, $tuple, $dict, $opaque. See docs/recording-format.md.

Encoding never runs student code: it dispatches on exact types, reads dicts
through dict.items (so an overridden items() or __iter__ is not called) and
never calls == or repr on student objects.
"""

import sys

_I64_MIN = -(2 ** 63)
_I64_MAX = 2 ** 63 - 1

# The encoder's budgets: nesting (deeper is opaque), nodes and characters
# of text of one value, bits of one int (more is TooLarge), and how much of
# an opaque value's type name and repr is kept. The harness sets them to the
# run's (src/runner/limits.rs); imported on its own (the tests' drivers),
# the codec has none.
LIMITS = ("MAX_DEPTH", "MAX_NODES", "MAX_TEXT", "MAX_INT_BITS", "OPAQUE_TYPE_CHARS", "OPAQUE_REPR_CHARS")
MAX_DEPTH = MAX_NODES = MAX_TEXT = MAX_INT_BITS = OPAQUE_TYPE_CHARS = OPAQUE_REPR_CHARS = sys.maxsize


class TooLarge(Exception):
    """The value is too large to encode (nodes or text over the budget)."""


def _opaque(v, why=None):
    try:
        name = type.__getattribute__(type(v), "__name__")
        if not isinstance(name, str):
            name = "object"
    except BaseException:
        name = "object"
    if why is None:
        if type(v) in (bytes, bytearray, complex, range):
            why = builtin_repr(v)
        else:
            why = "<%s object>" % name
    return {"$opaque": {"type": name[:OPAQUE_TYPE_CHARS], "repr": why[:OPAQUE_REPR_CHARS]}}


builtin_repr = repr


# The widest int written in decimal (309 digits at most): reading decimal
# text costs the grader quadratic time, hexadecimal linear, so wider ints are
# always written in hexadecimal, whatever int/str limit the student's code set
# (it may lift it: sys.set_int_max_str_digits(0)). The grader reads at most
# 4,300 decimal digits of one int, and 100,000 of one value's ints wider than
# this (src/value/budget.rs: HARNESS_DECIMAL_BITS, MAX_WIDE_DECIMAL_DIGITS).
DECIMAL_BITS = 1024


def _int_text(v):
    """Decimal digits of a big int; hexadecimal ("0x..."/"-0x...") when it is
    wider than DECIMAL_BITS, or when CPython's int/str conversion limit (which
    student code may lower) refuses decimal."""
    if v.bit_length() <= DECIMAL_BITS:
        try:
            return int.__repr__(v)
        except ValueError:
            pass
    return hex(v)


def _parse_int(text):
    if "x" in text:
        return int(text, 16)
    try:
        return int(text)
    except ValueError:
        sys.set_int_max_str_digits(0)
        return int(text)


def _is_plain_text(s):
    try:
        s.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


class Encoder:
    """One encoding job with its own node/text budget."""

    def __init__(self):
        self.nodes = 0
        self.text = 0
        self.path = set()

    def _count(self, text=0):
        self.nodes += 1
        self.text += text
        if self.nodes > MAX_NODES or self.text > MAX_TEXT:
            raise TooLarge()

    def encode(self, v, depth=0):
        t = type(v)
        if v is None:
            self._count()
            return None
        if t is bool:
            self._count()
            return v
        if t is int:
            self._count()
            if _I64_MIN <= v <= _I64_MAX:
                return v
            if v.bit_length() > MAX_INT_BITS:
                raise TooLarge()
            digits = _int_text(v)
            self._count(len(digits))
            return {"$int": digits}
        if t is float:
            self._count()
            if v != v:
                return {"$float": "nan"}
            if v in (float("inf"), float("-inf")):
                return {"$float": "inf" if v > 0 else "-inf"}
            return v
        if t is str:
            self._count(len(v))
            if _is_plain_text(v):
                return v
            return {"$str": [ord(c) for c in v]}
        if t is list or t is tuple or isinstance(v, dict):
            if depth >= MAX_DEPTH:
                return _opaque(v, "<nested deeper than %d>" % MAX_DEPTH)
            if id(v) in self.path:
                return _opaque(v, "<cycle>")
            self.path.add(id(v))
            try:
                return self._container(v, t, depth)
            finally:
                self.path.discard(id(v))
        self._count()
        return _opaque(v)

    def _container(self, v, t, depth):
        self._count()
        if t is list:
            return [self.encode(x, depth + 1) for x in list.__iter__(v)]
        if t is tuple:
            return {"$tuple": [self.encode(x, depth + 1) for x in tuple.__iter__(v)]}
        items = list(dict.items(v))
        plain = all(type(k) is str and not k.startswith("$") and _is_plain_text(k) for k, _ in items)
        if plain:
            out = {}
            for k, x in items:
                self._count(len(k))
                out[k] = self.encode(x, depth + 1)
            return out
        return {"$dict": [[self.encode(k, depth + 1), self.encode(x, depth + 1)] for k, x in items]}


def encode(v):
    """Encodes a value as tagged JSON data (raises TooLarge)."""
    return Encoder().encode(v)


def decode(j, made=None):
    """Builds fresh Python values from tagged JSON data; appends every list and
    dict it creates to `made` when given (the harness's aliasing check)."""
    if j is None or type(j) in (bool, int, float, str):
        return j
    if type(j) is list:
        v = [decode(x, made) for x in j]
        if made is not None:
            made.append(v)
        return v
    if len(j) == 1:
        ((k, x),) = j.items()
        if k == "$tuple":
            return tuple(decode(y, made) for y in x)
        if k == "$dict":
            v = {decode(a, made): decode(b, made) for a, b in x}
            if made is not None:
                made.append(v)
            return v
        if k.startswith("$"):
            return _tagged_scalar(k, x)
    v = {k: decode(x, made) for k, x in j.items()}
    if made is not None:
        made.append(v)
    return v


def object_hook(j):
    """`decode` as a json.loads object_hook: the value the JSON object `j`
    stands for, its contents already built (json.loads builds inside out)."""
    if len(j) == 1:
        ((k, x),) = j.items()
        if k.startswith("$"):
            if k == "$tuple":
                return tuple(x)
            if k == "$dict":
                return {a: b for a, b in x}
            return _tagged_scalar(k, x)
    return j


def _tagged_scalar(k, x):
    """The value of a one-key object tagged `k` that holds no other value
    (`$int`, `$float`, `$str`), for both decoders; raises for `$opaque` and
    for a tag it does not know."""
    if k == "$int":
        return _parse_int(x)
    if k == "$float":
        return float(x)
    if k == "$str":
        return "".join(map(chr, x))
    if k == "$opaque":
        raise ValueError("an opaque value cannot be rebuilt")
    raise ValueError("unknown tag %r" % k)


# ---------------------------------------------------------------------------
# The fast path: most values need no tag at all.
# ---------------------------------------------------------------------------


def _plain(v, depth, count, found, refs):
    """Whether the exact list or dict `v` holds only what plain JSON carries
    exactly as `Encoder` writes it (None, bools, ints in the i64 range,
    floats, text without lone surrogates, exact lists, exact dicts whose keys
    are such text not starting with "$"), at most MAX_DEPTH deep and within
    the budget (count: [nodes, text], counted as `Encoder` counts them).
    Puts every list and dict it meets into `found` (id -> object) and, for
    each, how often the lists and dicts in `found` hold it into `refs` (id
    -> count; each one's items counted once, however often it is met). A
    cycle ends at the depth limit. False means: let `Encoder` decide."""
    if depth >= MAX_DEPTH or len(v) > MAX_NODES or count[0] > MAX_NODES:
        return False
    first = id(v) not in found
    if first:
        found[id(v)] = v
    nodes = 1
    text = 0
    if type(v) is list:
        values = v
    else:
        for k in dict.keys(v):
            if type(k) is not str or k.startswith("$"):
                return False
            if not k.isascii():
                try:
                    k.encode("utf-8")
                except UnicodeEncodeError:
                    return False
            nodes += 1
            text += len(k)
        values = dict.values(v)
    for x in values:
        t = type(x)
        if t is str:
            nodes += 1
            text += len(x)
            if not x.isascii():
                try:
                    x.encode("utf-8")
                except UnicodeEncodeError:
                    return False
        elif t is int:
            nodes += 1
            if x < _I64_MIN or x > _I64_MAX:
                return False
        elif t is bool or x is None or t is float:
            nodes += 1
        elif t is list or t is dict:
            if first:
                refs[id(x)] = refs.get(id(x), 0) + 1
            count[0] += nodes
            count[1] += text
            nodes = text = 0
            if not _plain(x, depth + 1, count, found, refs):
                return False
        else:
            return False
    count[0] += nodes
    count[1] += text
    return count[0] <= MAX_NODES and count[1] <= MAX_TEXT


def plain_json(v, dump, found, refs):
    """The JSON text of `encode(v)` written by `dump` (a C encoder from
    json.encoder.c_make_encoder: compact, allow_nan off, which never calls
    student code on the exact types let through here) when `v` needs no tag,
    without building the tagged copy; None otherwise (then `encode` decides,
    and raises TooLarge where it would). When it answers, `found` and `refs`
    (empty dicts given) hold every list and dict in `v` and how often the
    others hold each (see `_plain`): what the harness's sharing check walks
    for (sharing.py's `_containers`); when it does not, something partial."""
    t = type(v)
    if t is list or t is dict:
        if not _plain(v, 0, [0, 0], found, refs):
            return None
    elif t is str:
        if len(v) > MAX_TEXT or not _is_plain_text(v):
            return None
    elif t is int:
        if v < _I64_MIN or v > _I64_MAX:
            return None
    elif not (t is bool or v is None or t is float):
        return None
    try:
        return "".join(dump(v, 0))
    except (ValueError, RecursionError):  # a NaN or infinity: a tag
        return None
