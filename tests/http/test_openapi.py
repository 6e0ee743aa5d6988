"""test_openapi.py — docs/openapi.json: served, structurally OpenAPI 3.1, complete, and true.

The document is served at GET /scribe-trials/api/openapi.json (compiled into scribe-fcgi). A
focused structural check stands in for a full OpenAPI 3.1 validator (no package for one on
Debian 12): version, info, path templating and path parameters, operations, status keys,
unique operation ids, every $ref resolving, security schemes, examples. Every statement of
fcgi/database.h's kEndpointNames is named by some operation's x-scribe-sql. Then each example
runs against the real stack: the request example named N (path, query or body) must get the
status of the response whose examples include N, its body must match that response's schema,
and an error example's exact body (when it has no placeholder).
"""

import json
import os
import re
import unittest
import urllib.parse

from harness import REPO, leftover_processes, make_stack

DOC_PATH = os.path.join(REPO, "docs", "openapi.json")
METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
PATH_ITEM_KEYS = METHODS | {"summary", "description", "servers", "parameters", "$ref"}
OPERATION_KEYS = {"tags", "summary", "description", "externalDocs", "operationId", "parameters", "requestBody",
                  "responses", "callbacks", "deprecated", "security", "servers"}
COMPONENT_KEYS = {"schemas", "responses", "parameters", "examples", "requestBodies", "headers", "securitySchemes",
                  "links", "callbacks", "pathItems"}
JSON_TYPES = {"null", "boolean", "object", "array", "number", "string", "integer"}


def load_doc():
    with open(DOC_PATH, encoding="utf-8") as f:
        return json.load(f)


def endpoint_names():
    """kEndpointNames from fcgi/database.h."""
    with open(os.path.join(REPO, "fcgi", "database.h"), encoding="utf-8") as f:
        text = f.read()
    block = re.search(r"kEndpointNames\[\]\s*=\s*\{(.*?)\};", text, re.S).group(1)
    return set(re.findall(r'"([a-z_]+)"', block))


def resolve(doc, node):
    """`node` with a $ref followed (to the end of a chain)."""
    while isinstance(node, dict) and "$ref" in node:
        pointer = node["$ref"]
        assert pointer.startswith("#/"), pointer
        node = doc
        for part in pointer[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def walk(node, path=""):
    """Every (path, dict) in the document."""
    if isinstance(node, dict):
        yield path, node
        for k, v in node.items():
            yield from walk(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, f"{path}/{i}")


def schema_errors(doc, schema, value, where="$"):
    """The ways `value` breaks `schema` (the JSON Schema subset the document uses)."""
    schema = resolve(doc, schema)
    errors = []
    if "allOf" in schema:
        for s in schema["allOf"]:
            errors += schema_errors(doc, s, value, where)
    if "oneOf" in schema:
        matches = sum(1 for s in schema["oneOf"] if not schema_errors(doc, s, value, where))
        if matches != 1:
            errors.append(f"{where}: matches {matches} of oneOf")
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} not in enum")
    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        kind = ("null" if value is None else "boolean" if isinstance(value, bool) else
                "integer" if isinstance(value, int) else "number" if isinstance(value, float) else
                "string" if isinstance(value, str) else "array" if isinstance(value, list) else "object")
        if not (kind in types or (kind == "integer" and "number" in types)):
            return errors + [f"{where}: {kind} is not {types}"]
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append(f"{where}: missing {key}")
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                errors += schema_errors(doc, sub, value[key], f"{where}.{key}")
        if schema.get("additionalProperties") is False:
            for key in set(value) - set(schema.get("properties", {})):
                errors.append(f"{where}: unexpected {key}")
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append(f"{where}: more than {schema['maxItems']} items")
        if "items" in schema:
            for i, v in enumerate(value):
                errors += schema_errors(doc, schema["items"], v, f"{where}[{i}]")
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errors.append(f"{where}: {value!r} does not match {schema['pattern']}")
        if len(value) > schema.get("maxLength", len(value)) or len(value) < schema.get("minLength", 0):
            errors.append(f"{where}: length {len(value)}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value < schema.get("minimum", value) or value > schema.get("maximum", value):
            errors.append(f"{where}: {value} out of range")
    return errors


class Structure(unittest.TestCase):
    """The document is OpenAPI 3.1 in the ways a validator would check, and complete."""

    @classmethod
    def setUpClass(cls):
        cls.doc = load_doc()

    def operations(self):
        for path, item in self.doc["paths"].items():
            for method in METHODS & set(item):
                yield path, method, item[method]

    def test_version_info_servers(self):
        self.assertRegex(self.doc["openapi"], r"^3\.1\.\d+$")
        self.assertIsInstance(self.doc["info"]["title"], str)
        self.assertIsInstance(self.doc["info"]["version"], str)
        self.assertEqual(self.doc["servers"], [{"url": "/scribe-trials", "description": "the mount point on the service's host"}])
        self.assertLessEqual(set(self.doc["components"]), COMPONENT_KEYS)

    def test_paths_and_operations(self):
        ids = []
        for path, item in self.doc["paths"].items():
            self.assertTrue(path.startswith("/"), path)
            self.assertLessEqual(set(item), PATH_ITEM_KEYS, path)
        for path, method, op in self.operations():
            where = f"{method.upper()} {path}"
            self.assertLessEqual(set(op) - {k for k in op if k.startswith("x-")}, OPERATION_KEYS, where)
            ids.append(op["operationId"])
            self.assertTrue(op["responses"], where)
            for status, response in op["responses"].items():
                self.assertRegex(status, r"^(default|[1-5](\d\d|XX))$", where)
                self.assertIsInstance(resolve(self.doc, response)["description"], str, f"{where} {status}")
            templated = re.findall(r"\{([^}]+)\}", path)
            params = [resolve(self.doc, p) for p in op.get("parameters", [])]
            for p in params:
                self.assertIn(p["in"], {"query", "header", "path", "cookie"}, where)
                self.assertTrue("schema" in p or "content" in p, where)
            path_params = [p["name"] for p in params if p["in"] == "path"]
            self.assertEqual(sorted(path_params), sorted(templated), where)
            for p in params:
                if p["in"] == "path":
                    self.assertIs(p["required"], True, where)
            for requirement in op.get("security", []):
                self.assertLessEqual(set(requirement), set(self.doc["components"]["securitySchemes"]), where)
        self.assertEqual(len(ids), len(set(ids)), "operationIds are unique")

    def test_every_ref_resolves_and_schemas_are_well_typed(self):
        for where, node in walk(self.doc):
            if "$ref" in node:
                self.assertTrue(node["$ref"].startswith("#/components/"), where)
                resolve(self.doc, node)  # raises KeyError when it does not resolve
            if "/schema" in where or where.startswith("/components/schemas"):
                t = node.get("type")
                if isinstance(t, (str, list)) and not where.endswith("/properties"):
                    self.assertLessEqual(set([t] if isinstance(t, str) else t), JSON_TYPES, where)
        for where, node in walk(self.doc):
            if re.search(r"/examples/[^/]+$", where) and isinstance(node, dict) and "summary" in node:
                self.assertFalse("value" in node and "externalValue" in node, where)

    def test_the_schema_check_sees_a_wrong_body(self):
        error = {"$ref": "#/components/schemas/Error"}
        self.assertEqual(schema_errors(self.doc, error, {"error": {"code": "x", "message": "y"}}), [])
        self.assertEqual(schema_errors(self.doc, error, {"error": {"code": 1}, "more": True}),
                         ["$.error: missing message", "$.error.code: integer is not ['string']", "$: unexpected more"])

    def test_every_endpoint_statement_is_documented(self):
        named = set()
        for _, _, op in self.operations():
            named |= set(op.get("x-scribe-sql", []))
        self.assertEqual(named, endpoint_names())

    def test_each_request_example_names_one_response(self):
        for path, method, op in self.operations():
            request, response = self.example_names(op)
            for name in request | response:
                statuses = [s for s, r in op["responses"].items()
                            if any(name in m.get("examples", {}) for m in resolve(self.doc, r).get("content", {}).values())]
                self.assertEqual(len(statuses), 1, f"{method.upper()} {path}: example {name} -> {statuses}")

    def example_names(self, op):
        request = set()
        for p in op.get("parameters", []):
            request |= set(resolve(self.doc, p).get("examples", {}))
        for media in op.get("requestBody", {}).get("content", {}).values():
            request |= set(media.get("examples", {}))
        response = set()
        for r in op["responses"].values():
            for media in resolve(self.doc, r).get("content", {}).values():
                response |= set(media.get("examples", {}))
        return request, response


class Served(unittest.TestCase):
    """The document is served, and every example request gets its documented status and body."""

    @classmethod
    def setUpClass(cls):
        cls.stack = make_stack()
        cls.doc = load_doc()

    @classmethod
    def tearDownClass(cls):
        cls.stack.stop()
        cls.stack.cleanup()
        assert not leftover_processes()

    def test_served_as_committed(self):
        r = self.stack.request("GET", "/api/openapi.json")
        self.assertEqual(r.status, 200)
        self.assertEqual(r.headers["content-type"], "application/json")
        self.assertEqual(r.headers["cache-control"], "no-cache")
        self.assertEqual(r.json(), self.doc)
        self.assertEqual(self.stack.request("HEAD", "/api/openapi.json").status, 200)
        r = self.stack.request("POST", "/api/openapi.json", "{}", {"Content-Type": "application/json"})
        self.assertEqual((r.status, r.headers["allow"], r.json()),
                         (405, "GET, HEAD", {"error": {"code": "method_not_allowed",
                                                       "message": "POST is not allowed here; use GET, HEAD"}}))

    def requests(self):
        """(label, method, url, body, headers, status, response) for every named example;
        submissions first, so the vendor the vendor examples name exists."""
        out = []
        for path, item in self.doc["paths"].items():
            for method in sorted(METHODS & set(item)):
                op = item[method]
                params = [resolve(self.doc, p) for p in op.get("parameters", [])]
                bodies = {}
                for media in op.get("requestBody", {}).get("content", {}).values():
                    bodies.update(media.get("examples", {}))
                names = set(bodies)
                for p in params:
                    names |= set(p.get("examples", {}))
                for status, response in op["responses"].items():
                    for media in resolve(self.doc, response).get("content", {}).values():
                        names |= set(media.get("examples", {}))
                for name in sorted(names):
                    url = path
                    query = {}
                    for p in params:
                        examples = p.get("examples", {})
                        if p["in"] == "path":
                            self.assertIn(name, examples, f"{method} {path}: path parameter {p['name']} has no example {name}")
                            url = url.replace("{" + p["name"] + "}", urllib.parse.quote(examples[name]["value"]))
                        elif name in examples:
                            query[p["name"]] = examples[name]["value"]
                    if query:
                        url += "?" + urllib.parse.urlencode(query)
                    body, headers = None, {}
                    if name in bodies:
                        value = bodies[name]["value"]
                        body = value if isinstance(value, str) else json.dumps(value)
                        headers = {"Content-Type": "application/json"}
                    elif "requestBody" in op and method == "post" and op["requestBody"].get("required"):
                        self.fail(f"{method} {path}: example {name} has no body")
                    status, response = next((s, resolve(self.doc, r)) for s, r in op["responses"].items()
                                            if any(name in m.get("examples", {})
                                                   for m in resolve(self.doc, r).get("content", {}).values()))
                    out.append((f"{method.upper()} {path} [{name}]", method.upper(), url, body, headers, status, response, name))
        out.sort(key=lambda r: (not r[0].startswith("POST /api/submit"), r[0]))
        return out

    def test_every_example_gets_its_documented_status_and_shape(self):
        loaded = self.stack.request("GET", "/health").json()["corpus_hash"]
        created = None
        requests = self.requests()
        self.assertGreaterEqual(len(requests), 27)  # the examples of docs/openapi.json when this was written
        for label, method, url, body, headers, status, response, name in requests:
            with self.subTest(label):
                r = self.stack.request(method, url, body, headers)
                self.assertEqual(r.status, int(status), f"{label}: {r.body[:300]!r}")
                for media_type, media in response.get("content", {}).items():
                    if media_type != "application/json":
                        self.assertTrue(r.headers["content-type"].startswith(media_type.split(";")[0]), label)
                        continue
                    self.assertEqual(r.headers["content-type"], "application/json", label)
                    got = r.json()
                    self.assertEqual(schema_errors(self.doc, media["schema"], got), [], label)
                    example = media.get("examples", {}).get(name, {})
                    if "value" in example:
                        expected = json.loads(json.dumps(example["value"]).replace("<loaded hash>", loaded))
                        self.assertEqual(got, expected, label)
                if label.startswith("POST /api/submit [graded]"):
                    created = r.json()["id"]
                    self.assertEqual(r.headers["location"], f"/scribe-trials/api/submissions/{created}")
        # The stored submission has the documented shape too.
        self.assertIsNotNone(created)
        r = self.stack.request("GET", f"/api/submissions/{created}")
        self.assertEqual(r.status, 200)
        op = self.doc["paths"]["/api/submissions/{id}"]["get"]
        schema = op["responses"]["200"]["content"]["application/json"]["schema"]
        self.assertEqual(schema_errors(self.doc, schema, r.json()), [])

    def test_other_methods_answer_405(self):
        for path, item in self.doc["paths"].items():
            if "x-scribe-sql" not in json.dumps(item) and path != "/api/openapi.json":
                continue  # nginx's static recordings answer their own 405 (test_api.py)
            url = re.sub(r"\{[^}]+\}", "03-depression-suicidal-ideation", path)
            r = self.stack.request("DELETE", url)
            allowed = "POST" if "post" in item else "GET, HEAD"
            self.assertEqual((r.status, r.headers.get("allow"), r.json()["error"]["code"]),
                             (405, allowed, "method_not_allowed"), path)


if __name__ == "__main__":
    unittest.main()
