"""The child's check that a result is new: which of a result's lists and
dicts its arguments, the module's globals or an earlier result of the same
child hold, and where (_run_case in child.py reports it for every call).

Run in harness.py's namespace by its `_load`, after the run's limits are
set; it defines names, the earlier results' store and, from a probe, the
interpreter's reference-count bases (_ref_bases)."""


def _shares(v, arg_ids, seen, depth=0):
    if depth > SHARES_DEPTH:
        return False
    t = type(v)
    if t is tuple:
        return any(_shares(x, arg_ids, seen, depth + 1) for x in tuple.__iter__(v))
    if isinstance(v, list) or isinstance(v, dict):
        if id(v) in arg_ids:
            return True
        if id(v) in seen:
            return False
        seen.add(id(v))
        if isinstance(v, list):
            return any(_shares(x, arg_ids, seen, depth + 1) for x in list.__iter__(v))
        return any(
            _shares(k, arg_ids, seen, depth + 1) or _shares(x, arg_ids, seen, depth + 1)
            for k, x in dict.items(v)
        )
    return False


def _container_ids(v, ids, depth=0):
    """The ids of every list and dict inside `v` (fresh from marshal: exact
    types, no cycles; a dict's keys are hashable, so they hold none)."""
    t = type(v)
    if t is list:
        ids.add(id(v))
    elif t is dict:
        ids.add(id(v))
        v = dict.values(v)
    elif t is not tuple:
        return
    for x in v:
        t = type(x)
        if t is list or t is dict or t is tuple:
            _container_ids(x, ids, depth + 1)


# ---------------------------------------------------------------------------
# Fresh results: a result's lists and dicts must be new objects. Besides the
# arguments' (shares_with_args), none may be one that, after the call, the
# module holds (reachable from its globals through lists, tuples and dicts)
# or one an earlier call of this child returned (kept alive here, so that no
# id can be reused by a new object). Walked by exact type, through
# list.__iter__, tuple.__iter__ and dict.values, so no student code runs;
# dict keys are hashable and hold no list or dict. Which checkpoints this
# fails is the grader's to decide (reference::RETURNS_NEW): the harness
# reports it for every call.
# ---------------------------------------------------------------------------

# The walks' budgets (GLOBALS_BUDGET, RESULT_BUDGET: past them the rest is
# not searched, nothing is failed), what a child keeps of earlier results
# (EARLIER_LIMIT lists and dicts, EARLIER_TEXT of their encoded values, so
# that big results cannot fill its memory) and how long `shared` may be
# (PATH_CHARS, KEY_CHARS) are the run's limits (src/runner/limits.rs).
_EARLIER = {}  # id -> every list and dict an earlier call of this child returned
_EARLIER_ROOTS = []  # those results, oldest first
_EARLIER_SIZE = [0]  # the length of their encoded values, in all
_EARLIER_NEW = []  # new results kept whose lists and dicts _EARLIER does not list yet
_EARLIER_NEW_HELD = [0]  # how many lists and dicts those hold
_getrefcount = sys.getrefcount


def _scalar(t):
    """Whether `t` (a type) is one no list or dict hides in. By identity:
    `t in (str, ...)` would compare, and a student's metaclass may define
    `__eq__`."""
    return t is str or t is int or t is float or t is bool or t is _NONE_TYPE


_NONE_TYPE = type(None)


def _items_of(x, t):
    """The items of a list, tuple or dict (subclasses too: their own
    methods are never called), or None for anything else."""
    if t is list or t is tuple or t is dict:
        return list.__iter__(x) if t is list else (tuple.__iter__(x) if t is tuple else dict.values(x))
    if _scalar(t):
        return None
    if issubclass(t, list):
        return list.__iter__(x)
    if issubclass(t, tuple):
        return tuple.__iter__(x)
    if issubclass(t, dict):
        return dict.values(x)
    return None


def _containers(v, found, refs, budget=RESULT_BUDGET):
    """Every list and dict in `v` (subclasses too, through tuples), by id,
    into `found`, and into `refs` how many references the result itself
    holds to each (its parents' slots). False when the budget ran out
    before the walk ended (then both are partial)."""
    tuples = set()
    stack = [v]
    while stack:
        x = stack.pop()
        t = type(x)
        items = _items_of(x, t)
        if items is None:
            continue
        if t is tuple or (t is not list and t is not dict and issubclass(t, tuple)):
            if id(x) in tuples:
                continue
            tuples.add(id(x))
        else:
            if id(x) in found:
                continue
            found[id(x)] = x
        budget -= 1
        for y in items:
            budget -= 1
            if budget < 0:
                return False
            if not _scalar(type(y)):
                refs[id(y)] = refs.get(id(y), 0) + 1
                stack.append(y)
    return True


def _outside_refs(root, found, refs):
    """For each list and dict of the result (`root`, held by one local of
    its caller), by id: its reference count less the result's own
    references to it, less what holding it here costs (_REF_BASE: one base
    for the root, one for the rest). Above 0: something else holds it.
    Called straight from the function that holds the result, as the
    calibration (_ref_bases) calls it."""
    out = {}
    root_base, base = _REF_BASE
    for i in found:
        x = found[i]
        out[i] = _getrefcount(x) - refs.get(i, 0) - (root_base if x is root else base)
    return out


def _ref_bases():
    """The (root, other) bases of _outside_refs, from a probe built and held
    as _run_case holds a result; None when the interpreter's counts do not
    show one more holder of any one object as exactly one more (then every
    result is searched for in the module and the earlier results)."""
    global _REF_BASE
    _REF_BASE = (0, 0)
    probe = {"a": [[], {"b": ((), [{}])}], "c": ([{}],), "d": [1, "x"]}
    found, refs = {}, {}
    if not _containers(probe, found, refs) or len(found) != 9:
        return None
    counts = _outside_refs(probe, found, refs)
    root_base = counts.pop(id(probe))
    bases = set(counts.values())
    if len(bases) != 1:
        return None
    _REF_BASE = (root_base, bases.pop())
    for i in list(found):
        holder = [found[i]]
        counts = _outside_refs(probe, found, refs)
        if counts.pop(i) != 1 or any(counts.values()):
            return None
        del holder
    if any(_outside_refs(probe, found, refs).values()):
        return None
    return _REF_BASE


def _key_text(k):
    """A dict key as a path shows it: the repr of a str (cut), an int, a
    float, a bool or None; `...` for anything else (never its own repr)."""
    t = type(k)
    if t is str:
        text = str.__repr__(k[:KEY_CHARS])
        return text if len(k) <= KEY_CHARS else text[:-1] + "..." + text[-1]
    if t is int:
        return _int_repr(k) if -(10**20) < k < 10**20 else "<int>"
    if t is float:
        return _float_repr(k)
    if k is None:
        return "None"
    if k is True or k is False:
        return "True" if k is True else "False"
    return "..."


def _path_to(root, target, budget=RESULT_BUDGET):
    """The steps (`[0]`, `['key']`) from `root` to the list or dict whose id
    is `target`, depth first; None when not found within `budget` nodes."""
    stack = [(root, ())]
    seen = set()
    while stack and budget > 0:
        x, steps = stack.pop()
        if id(x) == target:
            return steps
        t = type(x)
        if _scalar(t) or id(x) in seen:
            continue
        keyed = t is dict or (t is not list and t is not tuple and issubclass(t, dict))
        items = dict.items(x) if keyed else _items_of(x, t)
        if items is None:
            continue
        seen.add(id(x))
        budget -= 1
        children = []
        for i, y in enumerate(items):
            budget -= 1
            if budget < 0:
                break
            if keyed:
                i, y = y
            if not _scalar(type(y)):
                children.append((y, i))
        for y, i in reversed(children):
            stack.append((y, steps + ("[%s]" % _key_text(i) if keyed else "[%d]" % i,)))
    return None


def _path_text(head, steps):
    text = head + "".join(steps or ())
    return text if len(text) <= PATH_CHARS else text[: PATH_CHARS - 3] + "..."


def _module_holder(mod_dict, targets):
    """(global name, its value, id) of the first list or dict reachable from
    the module's globals (`__builtins__` aside) whose id is in `targets`,
    within GLOBALS_BUDGET nodes; None otherwise."""
    budget = GLOBALS_BUDGET
    seen = set()
    for name, v in list(dict.items(mod_dict)):
        if type(name) is str and name == "__builtins__":
            continue
        stack = [v]
        while stack:
            x = stack.pop()
            t = type(x)
            items = _items_of(x, t)
            if items is None:
                continue
            if t is not tuple and not (t is not list and t is not dict and issubclass(t, tuple)):
                if id(x) in targets:
                    return name, v, id(x)
                if id(x) in seen:
                    continue
                seen.add(id(x))
            budget -= 1
            for y in items:
                budget -= 1
                if budget < 0:
                    return None
                if not _scalar(type(y)):
                    stack.append(y)
    return None


def _global_name(name):
    if type(name) is str and name.isascii() and name.isidentifier() and len(name) <= KEY_CHARS:
        return "main." + name
    return "vars(main)[%s]" % _key_text(name)


def _first_in(result, found, targets):
    """The id of the first of the result's lists and dicts (`found`) that is
    in `targets`, depth first from the root (so the outermost); None when
    there is none."""
    hits = [i for i in found if i in targets]
    if len(hits) <= 1:
        return hits[0] if hits else None
    hit = set(hits)
    stack = [result]
    seen = set()
    while stack:
        x = stack.pop()
        if id(x) in hit:
            return id(x)
        if id(x) in seen:
            continue
        seen.add(id(x))
        items = _items_of(x, type(x))
        if items is not None:
            stack.extend(reversed([y for y in items if not _scalar(type(y))]))
    return hits[0]


def _shared_with_args(result, found, args, kwargs, arg_ids):
    """`got[...] is args[i][...]`: where the first object the result shares
    with the arguments is, in both; None when it cannot be found."""
    hit = _first_in(result, found, arg_ids)
    if hit is None:
        return None
    heads = [("args[%d]" % i, a) for i, a in enumerate(args)]
    heads += [("kwargs[%s]" % _key_text(k), a) for k, a in dict.items(kwargs)]
    for head, a in heads:
        where = _path_to(a, hit)
        if where is not None:
            return "%s is %s" % (_path_text("got", _path_to(result, hit)), _path_text(head, where))
    return None


def _arg_change(args, kwargs, blob):
    """Where the call changed its arguments, as the outcome's `changed`
    field's JSON: the path of the first difference from the arguments as
    given (`blob`: their marshal bytes) and its value before and after the
    call (tagged JSON; null when longer than CHANGE_CHARS); None when it
    cannot be told (then the outcome says only that they changed). The
    arguments as given are plain (marshal's exact types): comparing by exact
    type runs no student code but a hash of a key the student put in."""
    try:
        given_args, given_kwargs = _marshal_loads(blob)
        pairs = [("args[%d]" % i, a, args[i]) for i, a in enumerate(given_args)]
        pairs += [("kwargs[%s]" % _key_text(k), a, dict.get(kwargs, k)) for k, a in dict.items(given_kwargs)]
        for head, before, after in pairs:
            hit = _first_change(before, after, (), 0)
            if hit is not None:
                steps, before, after = hit
                return '{"path":%s,"before":%s,"after":%s}' % (
                    _esc(_path_text(head, steps)),
                    _change_value(before),
                    _change_value(after),
                )
    except BaseException:  # a key's hash or a student's thread
        pass
    return None


def _first_change(before, after, steps, depth):
    """(steps, before, after) at the first place `after` differs from
    `before` (plain), depth first; None when they are the same."""
    t = type(before)
    if type(after) is not t or depth > SHARES_DEPTH:
        return steps, before, after
    if t is list or t is tuple:
        for i in range(min(len(before), len(after))):
            hit = _first_change(before[i], after[i], steps + ("[%d]" % i,), depth + 1)
            if hit is not None:
                return hit
        return (steps, before, after) if len(before) != len(after) else None
    if t is dict:
        for k, x in dict.items(before):
            if k not in after:
                return steps, before, after
            hit = _first_change(x, dict.__getitem__(after, k), steps + ("[%s]" % _key_text(k),), depth + 1)
            if hit is not None:
                return hit
        # Keys added, or the same keys in another order.
        return (steps, before, after) if list(dict.keys(before)) != list(dict.keys(after)) else None
    if t is float:
        same = _float_repr(before) == _float_repr(after)
    else:
        same = before == after
    return None if same else (steps, before, after)


def _change_value(v):
    """A value of `changed` as tagged JSON, or null when too large."""
    try:
        text = dumps(T.encode(v))
    except BaseException:
        return "null"
    return text if len(text) <= CHANGE_CHARS else "null"


def _shared_with_state(mod_dict, result, found):
    """Where the result shares a list or dict with the module's globals or
    an earlier result (`got['a'] is main.CACHE['a']`, `got is an earlier
    call's result`); None when it shares none."""
    _settle_earlier()
    held = _module_holder(mod_dict, found)
    if held is not None:
        name, value, hit = held
        where = _path_to(value, hit)
        head = _global_name(name)
    else:
        hit = _first_in(result, found, _EARLIER)
        if hit is None:
            return None
        where = None
        for root in reversed(_EARLIER_ROOTS):
            where = _path_to(root, hit)
            if where is not None:
                break
        head = "an earlier call's result"
    return "%s is %s" % (_path_text("got", _path_to(result, hit)), _path_text(head, where))


def _keep_result(result, found, size):
    """Keeps the result's lists and dicts alive for the later calls' check
    (`size`: the length of its encoded value), within EARLIER_LIMIT and
    EARLIER_TEXT; past them, later results are not kept. (The new results
    kept before it count as many lists and dicts as they hold, listed or
    not.)"""
    if len(_EARLIER) + _EARLIER_NEW_HELD[0] + len(found) <= EARLIER_LIMIT and _EARLIER_SIZE[0] + size <= EARLIER_TEXT:
        _EARLIER.update(found)
        _EARLIER_ROOTS.append(result)
        _EARLIER_SIZE[0] += size


def _keep_new_result(result, count, size):
    """Keeps a new result (child.py's `_fast_returned`: nothing else holds
    any of its lists and dicts) as _keep_result would, without walking it:
    `count` is how many lists and dicts it holds, `size` the length of its
    marshal bytes. True when it is kept. Its lists and dicts are listed
    only when a later call's check needs them (_settle_earlier)."""
    if len(_EARLIER) + _EARLIER_NEW_HELD[0] + count > EARLIER_LIMIT or _EARLIER_SIZE[0] + size > EARLIER_TEXT:
        return False
    _EARLIER_ROOTS.append(result)
    _EARLIER_NEW.append(result)
    _EARLIER_NEW_HELD[0] += count
    _EARLIER_SIZE[0] += size
    return True


def _settle_earlier():
    """Lists the lists and dicts of the results _keep_new_result kept,
    into _EARLIER: what _keep_result would have put there."""
    if _EARLIER_NEW:
        for root in _EARLIER_NEW:
            _containers(root, _EARLIER, {})
        del _EARLIER_NEW[:]
        _EARLIER_NEW_HELD[0] = 0


def _forget_earlier():
    """The child's store of earlier results emptied (the checks' drivers)."""
    _EARLIER.clear()
    del _EARLIER_ROOTS[:]
    del _EARLIER_NEW[:]
    _EARLIER_NEW_HELD[0] = 0
    _EARLIER_SIZE[0] = 0


_REF_BASE = None
_REF_BASE = _ref_bases()
