"""The web client against the served OpenAPI document.

Two checks, so that a change of the API that breaks the client fails here:

- statically, every API call written in src/web (method, path, query
  parameter names) must be an operation of the document;
- at run time, every request the browser sends to /api/v1 during the tests
  must match an operation, and its JSON body must satisfy the operation's
  request schema (property names, required properties, types, enums, limits).
"""

import json
import os
import re
import urllib.parse

WEB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "web")
METHODS = ("get", "post", "put", "patch", "delete")


class Contract:
    def __init__(self, doc):
        self.doc = doc
        self.ops = []
        for path, item in doc["paths"].items():
            for method, op in item.items():
                if method in METHODS:
                    self.ops.append((method.upper(), path, op))

    # ---- matching ----
    @staticmethod
    def _segments_match(template, actual):
        t = template.strip("/").split("/")
        a = actual.strip("/").split("/")
        if len(t) != len(a):
            return False
        for ts, as_ in zip(t, a):
            if ts.startswith("{") and ts.endswith("}"):
                if not as_:
                    return False
            elif ts != as_:
                return False
        return True

    def find(self, method, path):
        """The operation for a method and a concrete path (or one with `{}` placeholders)."""
        for m, p, op in self.ops:
            if m == method and self._segments_match(p, path):
                return p, op
        return None, None

    # ---- schemas ----
    def resolve(self, schema):
        while isinstance(schema, dict) and "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[1]
            extra = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**self.doc["components"]["schemas"][name], **extra}
        return schema

    def errors(self, value, schema, where="body"):
        s = self.resolve(schema)
        if not isinstance(s, dict) or not s:
            return []
        out = []
        if "allOf" in s:
            for sub in s["allOf"]:
                out += self.errors(value, sub, where)
        for key in ("oneOf", "anyOf"):
            if key in s:
                fits = [sub for sub in s[key] if not self.errors(value, sub, where)]
                if not fits:
                    out.append(f"{where}: {json.dumps(value)[:80]} fits none of its {key} choices")
                return out
        types = s.get("type")
        if types is not None:
            types = types if isinstance(types, list) else [types]
            if not any(_is(value, t) for t in types):
                return out + [f"{where}: {json.dumps(value)[:80]} is not {'/'.join(types)}"]
        if "enum" in s and value not in s["enum"]:
            out.append(f"{where}: {value!r} is not one of {s['enum']}")
        if isinstance(value, str):
            if len(value) < s.get("minLength", 0):
                out.append(f"{where}: shorter than {s['minLength']}")
            if "maxLength" in s and len(value) > s["maxLength"]:
                out.append(f"{where}: longer than {s['maxLength']}")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in s and value < s["minimum"]:
                out.append(f"{where}: {value} is below {s['minimum']}")
            if "maximum" in s and value > s["maximum"]:
                out.append(f"{where}: {value} is above {s['maximum']}")
        if isinstance(value, list):
            if len(value) < s.get("minItems", 0):
                out.append(f"{where}: fewer than {s['minItems']} items")
            if "maxItems" in s and len(value) > s["maxItems"]:
                out.append(f"{where}: more than {s['maxItems']} items")
            if s.get("uniqueItems") and len({json.dumps(v, sort_keys=True) for v in value}) != len(value):
                out.append(f"{where}: items repeat")
            for i, v in enumerate(value):
                out += self.errors(v, s.get("items", {}), f"{where}[{i}]")
        if isinstance(value, dict):
            props = s.get("properties", {})
            for r in s.get("required", []):
                if r not in value:
                    out.append(f"{where}: `{r}` is required")
            for k, v in value.items():
                if k in props:
                    out += self.errors(v, props[k], f"{where}.{k}")
                elif s.get("additionalProperties") is False:
                    out.append(f"{where}: `{k}` is not a property of the request")
                elif isinstance(s.get("additionalProperties"), dict):
                    out += self.errors(v, s["additionalProperties"], f"{where}.{k}")
        return out

    def check_request(self, method, url, body_text):
        """Problems with one request the page sent, as sentences."""
        u = urllib.parse.urlsplit(url)
        path, op = self.find(method, u.path)
        if not op:
            return [f"{method} {u.path} is not an operation of the API"]
        problems = []
        names = {p["name"] for p in op.get("parameters", []) if p.get("in") == "query"}
        for q in urllib.parse.parse_qs(u.query, keep_blank_values=True):
            if q not in names:
                problems.append(f"{method} {path}: query parameter `{q}` is not in the document")
        if body_text:
            content = (op.get("requestBody") or {}).get("content", {})
            schema = (content.get("application/json") or {}).get("schema")
            if schema is None:
                problems.append(f"{method} {path} takes no JSON body")
            else:
                try:
                    body = json.loads(body_text)
                except ValueError:
                    return problems + [f"{method} {path}: the body is not JSON"]
                problems += [f"{method} {path}: {e}" for e in self.errors(body, schema)]
        elif (op.get("requestBody") or {}).get("required"):
            problems.append(f"{method} {path}: the body is required")
        return problems


def _is(value, t):
    return {
        "null": value is None,
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "string": isinstance(value, str),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }.get(t, True)


CALL = re.compile(r"""\bapi\(\s*'(GET|POST|PUT|PATCH|DELETE)'\s*,\s*(`[^`]*`|'[^']*')""")
FOLLOW = re.compile(r"""\bfollow\(\s*(`[^`]*`|'[^']*')""")
POST_HELPER = re.compile(r"""\bpost\(\s*(`[^`]*`|'[^']*')""")
FETCH = re.compile(r"""fetch\(`\$\{BASE\}(/[^`]*)`\s*,\s*\{\s*method:\s*'(\w+)'""")


def _template(literal):
    """A JS string or template literal as a path with `{}` for whole-segment placeholders."""
    s = literal[1:-1]
    path, _, query = s.partition("?")
    segs = []
    for seg in path.split("/"):
        segs.append("{}" if re.fullmatch(r"\$\{[^}]*\}", seg) else seg)
    path = "/".join(segs)
    # A placeholder that glues a sub-path on (`/games/${id}${path}`) cannot be checked here.
    if "${" in path:
        return None, []
    names = [kv.split("=", 1)[0] for kv in re.split(r"&", query) if kv and not kv.startswith("${")]
    return path, names


def static_calls():
    """(method, path, query names, file) for each API call written in the client."""
    calls = []
    for root, _, files in os.walk(WEB):
        for f in files:
            if not f.endswith(".js"):
                continue
            fp = os.path.join(root, f)
            src = open(fp, encoding="utf-8").read()
            rel = os.path.relpath(fp, WEB)
            for m in CALL.finditer(src):
                path, names = _template(m.group(2))
                if path:
                    calls.append((m.group(1), "/api/v1" + path, names, rel))
            for m in FOLLOW.finditer(src):
                path, names = _template(m.group(1))
                if path:
                    calls.append(("GET", path, names, rel))
            for m in FETCH.finditer(src):
                calls.append((m.group(2), "/api/v1" + m.group(1), [], rel))
            if rel == os.path.join("pages", "game.js"):
                # The game page's `post(path, body)` posts to /games/{id}<path>.
                for m in POST_HELPER.finditer(src):
                    path, names = _template(m.group(1))
                    if path:
                        calls.append(("POST", "/api/v1/games/{}" + path, names, rel))
    return calls


def check_static(contract):
    problems = []
    calls = static_calls()
    for method, path, names, where in calls:
        p, op = contract.find(method, path)
        if not op:
            problems.append(f"{where}: {method} {path} is not an operation of the API")
            continue
        known = {x["name"] for x in op.get("parameters", []) if x.get("in") == "query"}
        for n in names:
            if n not in known:
                problems.append(f"{where}: {method} {p}: query parameter `{n}` is not in the document")
    return calls, problems
