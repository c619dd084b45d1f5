"""Example buggy submission `sorts-results-in-place`: the model solution with one mistake.

Sorts the caller's `results` list in place into call order before copying, mutating the argument.
"""

import copy
import json
import math
import re

# ---------------------------------------------------------------------------
# Lesson 02 — JSON contract
# ---------------------------------------------------------------------------

MAX_CHARS = 4096
MAX_BYTES = 4096
MAX_DEPTH = 8
LABELS = ("factuur", "storing", "vraag", "onduidelijk")


def _unique_keys(pairs):
    """object_pairs_hook: refuse repeated or non-UTF-8-encodable keys."""
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r}")
        key.encode("utf-8")  # UnicodeEncodeError (a ValueError) on a lone surrogate
        seen.add(key)
    return dict(pairs)


def _refuse_constant(name):
    """parse_constant: NaN, Infinity and -Infinity are not JSON."""
    raise ValueError(f"{name} is not allowed")


def _check_tree(value, depth):
    """Refuse containers deeper than MAX_DEPTH, non-finite floats and
    strings that cannot be UTF-8 encoded. The root container has depth 1."""
    if isinstance(value, (dict, list)):
        if depth > MAX_DEPTH:
            raise ValueError("nested too deeply")
        children = value.values() if isinstance(value, dict) else value
        for child in children:
            _check_tree(child, depth + 1)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("non-finite number")
    elif isinstance(value, str):
        value.encode("utf-8")


def parse_contract_json(text):
    """Parse exactly one bounded JSON object; return it as a new dict."""
    if not isinstance(text, str) or len(text) > MAX_CHARS:
        raise ValueError("text must be a str of at most 4096 characters")
    if len(text.encode("utf-8")) > MAX_BYTES:
        raise ValueError("text is larger than 4096 bytes")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_refuse_constant,
        )
    except RecursionError:
        raise ValueError("nested too deeply") from None
    _check_tree(value, 1)
    if not isinstance(value, dict):
        raise ValueError("the JSON value must be an object")
    return value  # json.loads built it, so it is already a new dict


def validate_ticket(value, request_id, source):
    """Check a ticket's form and provenance; return it as a new dict."""
    if not isinstance(request_id, str) or not 1 <= len(request_id) <= 40:
        raise ValueError("request_id must be a str of 1..40 characters")
    if not isinstance(source, str) or not 1 <= len(source) <= 2000:
        raise ValueError("source must be a str of 1..2000 characters")
    if not isinstance(value, dict) or set(value) != {"id", "label", "evidence"}:
        raise ValueError("a ticket has exactly the keys id, label, evidence")
    if value["id"] != request_id:
        raise ValueError("the ticket answers another request")
    label = value["label"]
    if not isinstance(label, str) or label not in LABELS:
        raise ValueError("unknown label")

    evidence = value["evidence"]
    if label == "onduidelijk":
        if evidence is not None:
            raise ValueError("an unclear ticket carries no evidence")
        return {"id": request_id, "label": label, "evidence": None}

    if not isinstance(evidence, dict) or set(evidence) != {"start", "end", "text"}:
        raise ValueError("evidence has exactly the keys start, end, text")
    start, end, quote = evidence["start"], evidence["end"], evidence["text"]
    if type(start) is not int or type(end) is not int:  # bools are not offsets
        raise ValueError("start and end must be ints")
    if not 0 <= start < end <= len(source):
        raise ValueError("evidence span out of range")
    if not isinstance(quote, str) or quote != source[start:end]:
        raise ValueError("evidence text is not the quoted span of the source")
    return {
        "id": request_id,
        "label": label,
        "evidence": {"start": start, "end": end, "text": quote},
    }


def accept_ticket(raw, request_id, source, attempt, limit=2):
    """One step of a bounded repair loop: accept, retry or reject."""
    # A bad retry policy is a programming error: raise, never retry.
    if type(attempt) is not int or type(limit) is not int:
        raise ValueError("attempt and limit must be ints")
    if not 1 <= attempt <= limit <= 3:
        raise ValueError("need 1 <= attempt <= limit <= 3")
    try:
        ticket = validate_ticket(parse_contract_json(raw), request_id, source)
    except ValueError:
        status = "retry" if attempt < limit else "reject"
        return {"status": status, "value": None}
    return {"status": "accept", "value": ticket}


# ---------------------------------------------------------------------------
# Lesson 03 — tool proposals
# ---------------------------------------------------------------------------

CALL_ID = re.compile(r"[a-zA-Z0-9_-]{1,32}", re.ASCII)
SKU = re.compile(r"[a-z0-9-]{1,30}", re.ASCII)
MAX_FACTOR = 1_000_000
MAX_PRODUCT = 10**12
MAX_QUANTITY = 1_000_000
CATALOGUE = {"notebook": 12, "pen": 30}
MAX_CALLS = 8


def _exact_int(v, bound):
    """type(v) is int (so not a bool) and |v| <= bound."""
    return type(v) is int and abs(v) <= bound


def validate_tool_call(call):
    """Check a proposed tool call; return it as a new dict."""
    if not isinstance(call, dict) or set(call) != {"id", "name", "arguments"}:
        raise ValueError("a call has exactly the keys id, name, arguments")
    call_id, name, arguments = call["id"], call["name"], call["arguments"]
    if not isinstance(call_id, str) or not CALL_ID.fullmatch(call_id):
        raise ValueError("bad call id")
    if not isinstance(name, str) or name not in ("multiply", "stock"):
        raise ValueError("unknown tool")
    if not isinstance(arguments, dict):
        raise ValueError("arguments must be a dict")

    if name == "multiply":
        if set(arguments) != {"x", "y"}:
            raise ValueError("multiply takes exactly x and y")
        if not all(_exact_int(arguments[k], MAX_FACTOR) for k in ("x", "y")):
            raise ValueError("x and y must be ints with |v| <= 1_000_000")
    else:
        if set(arguments) != {"sku"}:
            raise ValueError("stock takes exactly sku")
        sku = arguments["sku"]
        if not isinstance(sku, str) or not SKU.fullmatch(sku):
            raise ValueError("bad sku")
    return {"id": call_id, "name": name, "arguments": dict(arguments)}


def execute_tool(call):
    """Validate a call, then run the one tool it names."""
    call = validate_tool_call(call)
    args = call["arguments"]
    if call["name"] == "multiply":
        result = {"value": args["x"] * args["y"]}
    else:
        sku = args["sku"]
        result = {"found": sku in CATALOGUE, "quantity": CATALOGUE.get(sku)}
    return {"call_id": call["id"], "result": result}


def _check_result_fits(name, result):
    """A result must have the shape its call's tool produces."""
    if name == "multiply":
        if set(result) != {"value"} or not _exact_int(result["value"], MAX_PRODUCT):
            raise ValueError("a multiply result is {'value': int}")
        return
    if set(result) != {"found", "quantity"} or type(result["found"]) is not bool:
        raise ValueError("a stock result is {'found': bool, 'quantity': ...}")
    quantity = result["quantity"]
    if result["found"]:
        if type(quantity) is not int or not 0 <= quantity <= MAX_QUANTITY:
            raise ValueError("a found item has a quantity in 0..1_000_000")
    elif quantity is not None:
        raise ValueError("an unknown item has quantity None")


def order_tool_results(calls, results):
    """Pair each result with its call by ID; return them in call order."""
    if not isinstance(calls, list) or not isinstance(results, list):
        raise ValueError("calls and results must be lists")
    if len(calls) > MAX_CALLS or len(results) != len(calls):
        raise ValueError("at most 8 calls, and one result per call")

    names = {}  # call id -> tool name, in call order
    for call in calls:
        checked = validate_tool_call(call)
        if checked["id"] in names:
            raise ValueError("duplicate call id")
        names[checked["id"]] = checked["name"]

    order = list(names)
    results.sort(key=lambda r: order.index(r["call_id"]) if isinstance(r, dict) and r.get("call_id") in names else 0)
    answers = {}  # call id -> a copy of its result
    for item in results:
        if not isinstance(item, dict) or set(item) != {"call_id", "result"}:
            raise ValueError("a result has exactly the keys call_id, result")
        call_id, result = item["call_id"], item["result"]
        if not isinstance(call_id, str) or call_id not in names:
            raise ValueError("result for an unknown call")
        if call_id in answers:
            raise ValueError("call answered twice")
        if not isinstance(result, dict):
            raise ValueError("result must be a dict")
        _check_result_fits(names[call_id], result)
        answers[call_id] = dict(result)

    return [{"call_id": cid, "result": answers[cid]} for cid in names]


# ---------------------------------------------------------------------------
# Lesson 04 — tool results
# ---------------------------------------------------------------------------

TOOL_USE_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}", re.ASCII)
MAX_PARTS = 16


def _check_arguments(name, arguments):
    """The tool's arguments as validate_tool_call checks them (steps 4-5)."""
    if not isinstance(arguments, dict):
        raise ValueError("arguments must be a dict")
    if name == "multiply":
        if set(arguments) != {"x", "y"}:
            raise ValueError("multiply takes exactly x and y")
        if not all(_exact_int(arguments[k], MAX_FACTOR) for k in ("x", "y")):
            raise ValueError("x and y must be ints with |v| <= 1_000_000")
    else:
        if set(arguments) != {"sku"}:
            raise ValueError("stock takes exactly sku")
        sku = arguments["sku"]
        if not isinstance(sku, str) or not SKU.fullmatch(sku):
            raise ValueError("bad sku")


def run_tool(name, input):
    """Run a requested tool, or refuse a name that is not one of ours."""
    if not isinstance(name, str) or name not in ("multiply", "stock"):
        raise ValueError(f"unknown tool: {name!r}")
    _check_arguments(name, input)
    if name == "multiply":
        return {"value": input["x"] * input["y"]}
    sku = input["sku"]
    return {"found": sku in CATALOGUE, "quantity": CATALOGUE.get(sku)}


def _parts(parts):
    """A list of at most 16 dicts, each holding a str type."""
    if not isinstance(parts, list) or len(parts) > MAX_PARTS:
        raise ValueError("parts must be a list of at most 16 items")
    for part in parts:
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            raise ValueError("every part is a dict with a str type")
    return parts


def _tool_uses(parts):
    """The tool_use parts, checked: exact keys, a valid and unique id."""
    uses = []
    seen = set()
    for part in _parts(parts):
        if part["type"] != "tool_use":
            continue
        if set(part) != {"type", "id", "name", "input"}:
            raise ValueError("a tool_use part has exactly type, id, name, input")
        tool_use_id = part["id"]
        if not isinstance(tool_use_id, str) or not TOOL_USE_ID.fullmatch(tool_use_id):
            raise ValueError("bad tool_use id")
        if tool_use_id in seen:
            raise ValueError(f"duplicate tool_use id {tool_use_id!r}")
        seen.add(tool_use_id)
        uses.append(part)
    return uses


def run_tools(parts):
    """One tool_result per tool_use; a failing tool is an error result."""
    results = []
    for part in _tool_uses(parts):
        try:
            content = json.dumps(run_tool(part["name"], part["input"]))
            status = "success"
        except ValueError as e:
            content = f"Error: {e}"
            status = "error"
        results.append(
            {
                "type": "tool_result",
                "tool_use_id": part["id"],
                "content": content,
                "status": status,
            }
        )
    return results


def check_tool_results(assistant_parts, user_parts):
    """Every tool_use answered exactly once, by its id, results first."""
    uses = _tool_uses(assistant_parts)
    for part in uses:
        if not isinstance(part["name"], str) or not isinstance(part["input"], dict):
            raise ValueError("a tool_use has a str name and a dict input")
    statuses = {}  # tool_use id -> status of its result
    other_seen = False
    for part in _parts(user_parts):
        if part["type"] != "tool_result":
            other_seen = True
            continue
        if other_seen:
            raise ValueError("tool_result parts must come first")
        if set(part) != {"type", "tool_use_id", "content", "status"}:
            raise ValueError("a tool_result has exactly type, tool_use_id, content, status")
        tool_use_id = part["tool_use_id"]
        if not isinstance(tool_use_id, str) or tool_use_id not in {u["id"] for u in uses}:
            raise ValueError("a tool_result answers no tool_use")
        if tool_use_id in statuses:
            raise ValueError("a tool_use is answered twice")
        content, status = part["content"], part["status"]
        if not isinstance(content, str):
            raise ValueError("content must be a str")
        if not isinstance(status, str) or status not in ("success", "error"):
            raise ValueError("status must be 'success' or 'error'")
        if status == "error" and not content:
            raise ValueError("an error result must say what went wrong")
        statuses[tool_use_id] = status
    if len(statuses) != len(uses):
        raise ValueError("a tool_use has no tool_result")
    return [{"id": u["id"], "name": u["name"], "status": statuses[u["id"]]} for u in uses]


# ---------------------------------------------------------------------------
# Lesson 05 — function calling
# ---------------------------------------------------------------------------

TOOL_SCHEMAS = {
    "calculator": {
        "properties": {"expression": {"type": "string"}, "precision": {"type": "integer"}},
        "required": ["expression"],
    },
    "get_weather": {
        "properties": {
            "city": {"type": "string"},
            "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city"],
    },
    "web_search": {
        "properties": {"query": {"type": "string"}, "max_results": {"type": "integer"}},
        "required": ["query"],
    },
    "read_file": {
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
    "run_code": {
        "properties": {
            "code": {"type": "string"},
            "language": {"type": "string", "enum": ["python"]},
        },
        "required": ["code"],
    },
}
DISABLED_TOOLS = ("calculator", "run_code")
MAX_ITERATIONS = 10
MAX_TURNS = 20
MAX_TOOL_CALLS = 8

WEATHER_DB = {
    "tokyo": {"temp_c": 18, "condition": "cloudy", "humidity": 72, "wind_kph": 14},
    "new york": {"temp_c": 22, "condition": "sunny", "humidity": 45, "wind_kph": 8},
    "london": {"temp_c": 12, "condition": "rainy", "humidity": 88, "wind_kph": 22},
    "san francisco": {"temp_c": 16, "condition": "foggy", "humidity": 80, "wind_kph": 18},
    "sydney": {"temp_c": 25, "condition": "sunny", "humidity": 55, "wind_kph": 10},
}
FILE_SYSTEM = {
    "data/config.json": '{"model": "gpt-4o", "temperature": 0.7, "max_tokens": 4096}',
    "data/users.csv": "name,email,role\nAlice,alice@example.com,admin\nBob,bob@example.com,user",
    "notes/caf\u00e9.txt": "Cr\u00e8me br\u00fbl\u00e9e \u2014 2 \u20ac\nSee README.md",
    "README.md": "# Demo project\nSample files for the function-calling lesson.\n",
}
SEARCH_DB = {
    "python function calling": [
        {
            "title": "OpenAI Function Calling Guide",
            "url": "https://platform.openai.com/docs/guides/function-calling",
            "snippet": "Learn how to connect LLMs to external tools.",
        },
        {
            "title": "Anthropic Tool Use",
            "url": "https://docs.anthropic.com/en/docs/tool-use",
            "snippet": "Claude can interact with external tools and APIs.",
        },
    ],
    "MCP protocol": [
        {
            "title": "Model Context Protocol",
            "url": "https://modelcontextprotocol.io",
            "snippet": "An open standard for connecting AI models to data sources.",
        },
    ],
    "weather API": [
        {
            "title": "OpenWeatherMap API",
            "url": "https://openweathermap.org/api",
            "snippet": "Free weather API with current, forecast, and historical data.",
        },
    ],
}


def _type_ok(expected, value):
    """JSON-schema types: a bool is not an integer."""
    if expected == "string":
        return isinstance(value, str)
    return type(value) is int


def validate_tool_arguments(tool_name, arguments):
    """The list of problems with a tool call's arguments; [] when valid."""
    if not isinstance(tool_name, str):
        raise ValueError("tool_name must be a str")
    if tool_name not in TOOL_SCHEMAS:
        return [f"Unknown tool: {tool_name}"]
    if not isinstance(arguments, dict):
        return [f"Arguments must be an object, got {type(arguments).__name__}"]
    schema = TOOL_SCHEMAS[tool_name]
    properties = schema["properties"]
    errors = []
    for name in schema["required"]:
        if name not in arguments:
            errors.append(f"Missing required argument: {name}")
    for arg_name, arg_value in arguments.items():
        if arg_name not in properties:
            errors.append(f"Unknown argument: {arg_name}")
            continue
        spec = properties[arg_name]
        if not _type_ok(spec["type"], arg_value):
            errors.append(
                f"Argument '{arg_name}': expected {spec['type']}, "
                f"got {type(arg_value).__name__}"
            )
        if "enum" in spec and arg_value not in spec["enum"]:
            errors.append(f"Argument '{arg_name}': '{arg_value}' not in {spec['enum']}")
    return errors


def read_file(path):
    """A read-only file tool: errors are answered as data, never raised."""
    if not isinstance(path, str):
        return {"error": True, "message": "Path must be a string.", "code": "INVALID_PATH"}
    if ".." in path or path.startswith("/") or "\\" in path or "\0" in path:
        return {"error": True, "message": "Path traversal not allowed.", "code": "FORBIDDEN"}
    if path not in FILE_SYSTEM:
        return {
            "error": True,
            "message": f"File '{path}' not found.",
            "available_files": list(FILE_SYSTEM),
            "code": "NOT_FOUND",
        }
    content = FILE_SYSTEM[path]
    return {
        "path": path,
        "content": content,
        "size_bytes": len(content.encode("utf-8")),
        "lines": content.count("\n") + 1,
    }


def _get_weather(arguments):
    city = arguments["city"]
    units = arguments.get("units", "celsius")
    key = city.lower().strip()
    if key not in WEATHER_DB:
        return {
            "error": True,
            "message": f"City '{city}' not found.",
            "suggestions": [c for c in WEATHER_DB if c.startswith(key[:3])],
            "code": "CITY_NOT_FOUND",
        }
    result = dict(WEATHER_DB[key])
    if units == "fahrenheit":
        result["temp_f"] = round(result["temp_c"] * 9 / 5 + 32, 1)
        del result["temp_c"]
    result["city"] = city
    return result


def _web_search(arguments):
    query = arguments["query"]
    max_results = arguments.get("max_results", 3)
    key = query.lower().strip()
    for db_key, results in SEARCH_DB.items():
        if db_key in key or key in db_key:
            return {"query": query, "results": results[:max_results], "total": len(results)}
    return {"query": query, "results": [], "total": 0}


def _run_call(name, arguments):
    """One tool call of the loop, answered as data."""
    if name not in TOOL_SCHEMAS:
        return {"error": True, "message": f"Unknown tool: {name}", "code": "UNKNOWN_TOOL"}
    errors = validate_tool_arguments(name, arguments)
    if errors:
        return {
            "error": True,
            "message": "Invalid arguments.",
            "errors": errors,
            "code": "INVALID_ARGUMENTS",
        }
    if name in DISABLED_TOOLS:
        return {"error": True, "message": f"Tool '{name}' is disabled here.", "code": "DISABLED"}
    if name == "read_file":
        return read_file(arguments["path"])
    if name == "get_weather":
        return _get_weather(arguments)
    return _web_search(arguments)


def _check_reply(reply):
    """A reply is a list of at most 8 calls {name: str, arguments: ...}."""
    if not isinstance(reply, list) or len(reply) > MAX_TOOL_CALLS:
        raise ValueError("a reply is a list of at most 8 tool calls")
    for call in reply:
        if not isinstance(call, dict) or set(call) != {"name", "arguments"}:
            raise ValueError("a tool call has exactly the keys name, arguments")
        if not isinstance(call["name"], str):
            raise ValueError("a tool call's name is a str")


def run_tool_loop(turns, max_iterations=5):
    """Drive a scripted model through the function-calling loop, bounded."""
    if type(max_iterations) is not int or not 1 <= max_iterations <= MAX_ITERATIONS:
        raise ValueError("max_iterations must be an int in 1..10")
    if not isinstance(turns, list) or len(turns) > MAX_TURNS:
        raise ValueError("turns must be a list of at most 20 replies")
    messages = []
    for i in range(max_iterations):
        reply = turns[i] if i < len(turns) else []
        _check_reply(reply)
        if not reply:
            return {"messages": messages, "iterations": i + 1, "stop": "done"}
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {"name": call["name"], "arguments": copy.deepcopy(call["arguments"])}
                    for call in reply
                ],
            }
        )
        for call in reply:
            result = _run_call(call["name"], call["arguments"])
            messages.append({"role": "tool", "name": call["name"], "content": json.dumps(result)})
    return {"messages": messages, "iterations": max_iterations, "stop": "max-iterations"}
