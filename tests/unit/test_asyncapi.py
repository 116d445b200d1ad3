"""``docs/asyncapi.yaml``, the AsyncAPI 3.0 document of the WebSocket protocol
(``scripts/export_asyncapi.py``): in step with the pydantic models, every request and server
message in it with an example that validates against its payload schema, and valid for the
AsyncAPI validator (``tools/asyncapi/validate.mjs``: ``@asyncapi/parser``, the library and
ruleset of ``asyncapi validate``, pinned in ``tools/asyncapi/``).

``scripts/test`` installs it (``npm ci`` in ``tools/asyncapi``, about 55 MB) when it is missing or
not the locked one; run without it, the validator tests install it themselves (under a file lock:
parallel workers install it once; seconds). Only a machine without Node.js or npm skips them.
"""

from __future__ import annotations

import copy
import difflib
import fcntl
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, get_args

import pytest
import yaml
from naiko_service import protocol
from naiko_service.protocol import ROUTES

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "docs" / "asyncapi.yaml"
TOOLS = ROOT / "tools" / "asyncapi"
VALIDATOR = TOOLS / "validate.mjs"
PARSER = TOOLS / "node_modules" / "@asyncapi" / "parser" / "package.json"
STAMP = TOOLS / "node_modules" / ".naiko-package-lock.json"
"""A copy of ``package-lock.json`` as of the last ``npm ci``: a changed lock reinstalls."""

MESSAGE_TYPES = {str(get_args(m.model_fields["type"].annotation)[0])
                 for m in get_args(get_args(protocol.AnyMessage)[0])}


def _load_script(name: str) -> ModuleType:
    path = ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve their module through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated() -> tuple[dict[str, Any], str]:
    """The document as the models and the example session make it now, and its text."""
    exporter = _load_script("export_asyncapi")
    session = _load_script("protocol_examples").play()
    return exporter.build(session), exporter.render(session)


@pytest.fixture(scope="module")
def rendered(generated: tuple[dict[str, Any], str]) -> str:
    """``docs/asyncapi.yaml`` as the models and the example session make it now."""
    return generated[1]


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
    return loaded


def _resolve(document: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = document
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _messages(document: dict[str, Any], key: str) -> dict[str, Any]:
    """``x-naiko-action`` or ``x-naiko-type`` value -> message, of every message."""
    return {m[key]: m for m in document["components"]["messages"].values() if key in m}


# -- in step with the models -----------------------------------------------------------------

def test_the_committed_document_is_the_one_the_models_generate(rendered: str) -> None:
    committed = DOCUMENT.read_text(encoding="utf-8") if DOCUMENT.is_file() else ""
    if committed != rendered:
        diff = difflib.unified_diff(committed.splitlines(), rendered.splitlines(),
                                    "docs/asyncapi.yaml (committed)", "(generated now)",
                                    lineterm="", n=1)
        pytest.fail("docs/asyncapi.yaml is out of date with naiko_service.protocol or the "
                    "example session; regenerate it: python scripts/export_asyncapi.py\n"
                    + "\n".join(list(diff)[:30]), pytrace=False)


def test_the_yaml_reads_back_as_the_document_built(generated: tuple[dict[str, Any], str]) -> None:
    """No value changes type on the way through YAML (a date-like ``day``, ``"null"``, ``"on"``):
    the file says exactly what the generator built, and it is plain JSON data."""
    built, text = generated
    loaded = yaml.safe_load(text)
    assert loaded == built
    assert json.loads(json.dumps(loaded)) == built


def test_the_payload_schemas_are_the_published_json_schemas(document: dict[str, Any]) -> None:
    """The same schemas as ``docs/schemas/`` (references aside), so the two never disagree."""
    published: dict[str, Any] = {}
    for name in ("requests", "messages"):
        text = (ROOT / "docs" / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8")
        published.update(json.loads(text.replace("#/$defs/", "#/components/schemas/"))["$defs"])
    assert document["components"]["schemas"] == published


def test_nested_models_are_referenced_in_components_and_2020_12_keywords_refused() -> None:
    """No message model nests another one today; when one does (a typed view, say), pydantic's
    ``#/$defs/X`` must become AsyncAPI's ``#/components/schemas/X``, and a JSON Schema 2020-12
    keyword that AsyncAPI's draft-07 based format cannot read must stop the export."""
    exporter = _load_script("export_asyncapi")
    schema = {"properties": {"view": {"$ref": "#/$defs/View"},
                             "seats": {"items": {"$ref": "#/$defs/Seat"}, "type": "array"}},
              "type": "object"}
    assert exporter._rewrite_refs(schema) == {
        "properties": {"seats": {"items": {"$ref": "#/components/schemas/Seat"},
                                 "type": "array"},
                       "view": {"$ref": "#/components/schemas/View"}},
        "type": "object"}
    with pytest.raises(ValueError, match="prefixItems"):
        exporter._rewrite_refs({"properties": {"cards": {"prefixItems": [{"type": "string"}]}}})


# -- what the document holds ----------------------------------------------------------------

def test_every_request_and_server_message_is_a_message_with_an_example(
        document: dict[str, Any]) -> None:
    requests = _messages(document, "x-naiko-action")
    messages = _messages(document, "x-naiko-type")
    assert set(requests) == set(ROUTES)
    assert set(messages) == MESSAGE_TYPES
    for tag, message in {**requests, **messages}.items():
        assert message["examples"], tag
        for example in message["examples"]:
            field = "action" if tag in requests and message is requests[tag] else "type"
            assert example["payload"][field] == tag


def test_every_example_validates_against_its_payload_schema(document: dict[str, Any]) -> None:
    """jsonschema (draft 7: AsyncAPI's schema format is a superset of it) on every example, with
    the document's own ``$ref``s; and each schema refuses its example once changed (a field
    it does not know, or the wrong ``action``/``type``), so the check is not vacuous."""
    jsonschema = pytest.importorskip("jsonschema")
    from referencing import Registry
    from referencing.jsonschema import DRAFT7

    base = "urn:naiko:asyncapi"
    registry: Registry[Any] = Registry().with_resource(base, DRAFT7.create_resource(document))
    count = 0
    for key, message in sorted(document["components"]["messages"].items()):
        validator = jsonschema.Draft7Validator({"$ref": base + message["payload"]["$ref"]},
                                               registry=registry)
        field = "action" if "x-naiko-action" in message else "type"
        for example in message["examples"]:
            payload = example["payload"]
            errors = [e.message for e in validator.iter_errors(payload)]
            assert not errors, (key, example["name"], errors)
            assert not validator.is_valid({**payload, "unknown_field": 1}), key
            assert not validator.is_valid({**payload, field: "no_such_" + field}), key
            count += 1
    assert count >= len(ROUTES) + len(MESSAGE_TYPES)


def test_every_reference_resolves(document: dict[str, Any]) -> None:
    refs: list[str] = []
    pending: list[Any] = [document]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                refs.append(node["$ref"])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    assert len(refs) > 100
    for ref in refs:
        assert isinstance(_resolve(document, ref), dict), ref


def test_one_send_per_request_and_one_receive_per_server_message(
        document: dict[str, Any]) -> None:
    channel = document["channels"]["connection"]
    operations = document["operations"]
    sends = {k: o for k, o in operations.items() if o["action"] == "send"}
    receives = {k: o for k, o in operations.items() if o["action"] == "receive"}
    assert set(sends) == {f"send_{action}" for action in ROUTES}
    assert set(receives) == {f"receive_{kind}" for kind in MESSAGE_TYPES}
    used: set[str] = set()
    for key, operation in operations.items():
        assert operation["channel"] == {"$ref": "#/channels/connection"}
        [message] = operation["messages"]
        assert message["$ref"].startswith("#/channels/connection/messages/"), key
        tag = key.split("_", 1)[1]
        assert _resolve(document, message["$ref"])["$ref"] == channel["messages"][
            message["$ref"].rsplit("/", 1)[1]]["$ref"]
        named = _resolve(document, channel["messages"][message["$ref"].rsplit("/", 1)[1]][
            "$ref"])
        assert named["x-naiko-action" if key in sends else "x-naiko-type"] == tag
        used.add(message["$ref"])
    assert used == {f"#/channels/connection/messages/{k}" for k in channel["messages"]}
    # Every request may be refused; the answers named are messages of the channel.
    for key, operation in sends.items():
        answers = [m["$ref"] for m in operation["reply"]["messages"]]
        assert answers[-1] == "#/channels/connection/messages/Error", key
        assert len(answers) >= 2, f"{key}: no answer but error seen in the session"
        assert all(a.rsplit("/", 1)[1] in channel["messages"] for a in answers), key
    assert [m["$ref"].rsplit("/", 1)[1] for m in sends["send_list_tables"]["reply"][
        "messages"]] == ["Tables", "Error"]


def test_servers_and_the_token_query_parameter(document: dict[str, Any]) -> None:
    servers = document["servers"]
    assert (servers["local"]["protocol"], servers["local"]["host"]) == ("ws", "127.0.0.1:8765")
    aws = servers["aws"]
    assert aws["protocol"] == "wss"
    assert f"{aws['host']}{aws['pathname']}" == "{api}.execute-api.{region}.amazonaws.com/{stage}"
    assert set(aws["variables"]) == {"api", "region", "stage"}
    scheme = {"$ref": "#/components/securitySchemes/token"}
    assert servers["local"]["security"] == servers["aws"]["security"] == [scheme]
    token = _resolve(document, scheme["$ref"])
    assert (token["type"], token["in"], token["name"]) == ("httpApiKey", "query", "token")
    query = document["channels"]["connection"]["bindings"]["ws"]["query"]
    assert query["required"] == ["token"]


# -- the AsyncAPI validator ----------------------------------------------------------------------

def asyncapi_validator() -> list[str]:
    """The command that validates a document (``node tools/asyncapi/validate.mjs``), its npm
    packages installed (``npm ci``) if missing or not the locked versions."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("Node.js and npm are not installed: the AsyncAPI validator (@asyncapi/parser, "
                    "tools/asyncapi) is an npm package")
    lock = TOOLS / "package-lock.json"
    (ROOT / ".cache").mkdir(exist_ok=True)
    with open(ROOT / ".cache" / "asyncapi-npm.lock", "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        if not (PARSER.exists() and STAMP.is_file() and STAMP.read_bytes() == lock.read_bytes()):
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=TOOLS, check=True,
                           capture_output=True, timeout=1200)
            STAMP.write_bytes(lock.read_bytes())
    return [node, str(VALIDATOR)]


def run_validator(path: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """The validator on ``path``, failing on warnings too (as ``asyncapi validate
    --fail-severity warn``); nothing written to the home directory, nothing sent."""
    environment = {"PATH": str(Path(shutil.which("node") or "node").parent), "CI": "true",
                   "HOME": str(tmp_path), "NO_COLOR": "1"}
    return subprocess.run([*asyncapi_validator(), str(path)], capture_output=True, text=True,
                          timeout=180, env=environment, cwd=ROOT)


def test_the_asyncapi_validator_accepts_the_document(tmp_path: Path) -> None:
    result = run_validator(DOCUMENT, tmp_path)
    print(result.stdout + result.stderr)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "is valid" in result.stdout
    assert "0 errors, 0 warnings" in result.stdout


def test_the_asyncapi_validator_refuses_a_broken_document(document: dict[str, Any],
                                                         tmp_path: Path) -> None:
    """The validator is not vacuous: an operation whose action AsyncAPI 3.0 does not have
    (``publish`` was 2.x's) and a payload ``$ref`` to nothing are errors."""
    broken = copy.deepcopy(document)
    broken["operations"]["send_act"]["action"] = "publish"
    broken["components"]["messages"]["Error"]["payload"]["$ref"] = "#/components/schemas/Nope"
    path = tmp_path / "asyncapi.yaml"
    path.write_text(yaml.safe_dump(broken, sort_keys=False), encoding="utf-8")
    result = run_validator(path, tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "operations.send_act.action" in output
    assert "#/components/schemas/Nope" in output
