"""Cold start of the game function with the engine layer as source only and precompiled.

    .venv/bin/python scripts/bench_cold_start.py [--runs 9] [--keep DIR]

Builds two layer trees in a temporary directory with ``layers/engine/Makefile`` for *this*
interpreter (``LAYER_PLATFORM=`` so pip picks this machine's wheels, ``PYTHON`` = this Python):

* ``before``: the Makefile's output with every ``__pycache__`` removed, i.e. what
  ``BuildMethod: python3.12`` shipped (sources only: no .pyc in the layer at all);
* ``after``: the Makefile's output as is (``compileall --invalidation-mode unchecked-hash``).

Each run is a fresh interpreter, as on a new Lambda container, with ``PYTHONDONTWRITEBYTECODE=1``
(Lambda's file system is read-only: nothing compiled on one run is cached for the next) and
the Lambda import path: the function's code (a source-only copy of ``functions/game``), then the
layer's ``python/``; ``-S``, so nothing comes from the virtualenv. It measures the first frame
on a new container: ``import app`` (``functions/game/app.py``), then building the service on
the in-memory adapters (``tests/service_testing.py``, handed to ``bootstrap.set_service`` like
the tests do), connecting the sample player and invoking the game handler with
``events/create_table.json`` (whose reply must be an ``ack``). Runs alternate between the two
trees (before, after, after, before, ...) so both see the same machine load; it prints min and
median per variant and the ratios after / before.

    .venv/bin/python scripts/bench_cold_start.py --functions [--runs 9] [--python python3.12 ...]

``--functions``: the first frame of each function on a new container next to ``import boto3``
alone, for each Python given (default: ``python3.12`` if one is on ``PATH``, and this one).
For each, the compiled layer is built for that Python (as above), and every run is a fresh
interpreter (``-S``, ``PYTHONDONTWRITEBYTECODE=1``, read-only trees, the function's source
then the layer's ``python/`` on the path) that does one of:

* ``boto3``: ``import boto3``;
* ``game``: ``import app`` of ``functions/game``, then ``events/create_table.json`` through
  its handler (the service is built for real: boto3 clients, the state key read from Secrets
  Manager and stretched with HKDF, as deployed; the reply posted must be an ``ack``);
* ``connect``: ``functions/connect`` with ``events/connect.json`` (a new connection's item);
* ``authorizer``: ``functions/authorizer`` with ``events/connect_authorizer.json`` carrying a
  valid token (an ``Allow`` policy);
* ``floor``: a minimal handler (:data:`FLOOR_APP`): Powertools ``Logger`` and ``Metrics``, a
  botocore DynamoDB client and one ``GetItem``, no Naiko code: what those parts alone cost;
* ``timer``: ``functions/timer`` with one SQS record, the ``next_hand`` wake-up of a table
  whose hand just ended (the next hand is dealt, its decision timer queued). The table's
  items are put back before each run, so every run does the same work.

The AWS calls go to a moto server in this process (``ThreadedMotoServer`` on localhost, a
few ms a call, like DynamoDB from Lambda), seeded before the first run. It prints, per Python
and function, min and median of ``import app``, of the first invocation and of their sum (the
first frame), and the first frame's ratio to ``import boto3`` (min / min, median / median);
the goal (issue 23 item 9) is at most 1.5.

    .venv/bin/python scripts/bench_cold_start.py --breakdown [--runs 9] [--python python3.12]

``--breakdown``: what the game function's first frame spends its CPU time on, part by part,
without AWS calls: a fresh interpreter (as above, on the compiled layer) takes the parts one
after the other (:data:`BREAKDOWN_CHILD`: the handler's import, botocore, the DynamoDB client,
pydantic, the engine, the protocol, the use cases, the other clients, HKDF) and prints each
part's CPU time (min, median, and min over ``import boto3``'s min, measured in the same runs).
What the frame adds to them (its three AWS calls, the use case, the reply) is the ``game`` row
of ``--functions`` minus their sum.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import time
started = time.perf_counter()
import json, sys
import app
imported = time.perf_counter()

from naiko_service import bootstrap
from service_testing import harness

event = json.loads(open(sys.argv[1], encoding="utf-8").read())
context = event["requestContext"]
player = context["authorizer"]["player_id"]
h = harness()
bootstrap.set_service(h.service)
h.accounts.grant(player, 10_000)
h.service.connect(context["connectionId"], player)


class Context:
    function_name = "naiko-bench-game"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:naiko-bench-game"
    aws_request_id = "6f1c2d3e-0000-4000-8000-000000000001"


result = app.lambda_handler(event, Context())
answered = time.perf_counter()
reply = h.gateway.sent[context["connectionId"]][-1]
modules = len(sys.modules)
print(json.dumps({"import_ms": (imported - started) * 1000,
                  "first_ms": (answered - imported) * 1000,
                  "total_ms": (answered - started) * 1000,
                  "status": result.get("statusCode"), "reply": reply.get("type"),
                  "modules": modules}))
"""


def build_layer(work: Path, python: str = sys.executable) -> Path:
    """The Makefile's layer for *python* (this interpreter), in *work*/after; returns its
    python/."""
    started = time.monotonic()
    done = subprocess.run(["make", "--no-print-directory", "-s", "build-EngineLayer",
                           f"ARTIFACTS_DIR={work / 'after'}", f"PYTHON={python}",
                           "LAYER_PLATFORM="],
                          cwd=ROOT / "layers" / "engine", capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"make build-EngineLayer failed:\n{done.stdout}{done.stderr}")
    print(f"built the layer with layers/engine/Makefile for {python} in "
          f"{time.monotonic() - started:.1f} s")
    return work / "after" / "python"


def source_only_copy(layer: Path, target: Path) -> Path:
    shutil.copytree(layer, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def tree_stats(tree: Path) -> str:
    files = [p for p in tree.rglob("*") if p.is_file()]
    pyc = sum(1 for p in files if p.suffix == ".pyc")
    size = sum(p.stat().st_size for p in files) / 1e6
    return f"{len(files)} files, {pyc} .pyc, {size:.1f} MB"


def make_read_only(tree: Path) -> None:
    """As on Lambda (root ignores the mode bits; PYTHONDONTWRITEBYTECODE does the rest)."""
    for path in tree.rglob("*"):
        if not path.is_symlink():
            path.chmod(path.stat().st_mode & 0o555)
    tree.chmod(tree.stat().st_mode & 0o555)


def make_writable(tree: Path) -> None:
    for path in [tree, *tree.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200)


def run_once(layer: Path, function: Path, support: Path, event: Path) -> dict[str, Any]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "AWS_", "POWERTOOLS_"))}
    env.update({"PYTHONPATH": os.pathsep.join([str(function), str(layer), str(support)]),
                "PYTHONDONTWRITEBYTECODE": "1", "POWERTOOLS_SERVICE_NAME": "naiko",
                "POWERTOOLS_METRICS_NAMESPACE": "Naiko", "POWERTOOLS_TRACE_DISABLED": "true",
                "AWS_DEFAULT_REGION": "eu-west-1"})
    done = subprocess.run([sys.executable, "-S", "-c", CHILD, str(event)], capture_output=True,
                          text=True, env=env, cwd=str(function), timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"the run failed:\n{done.stderr[-3000:]}")
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if measured["status"] != 200 or measured["reply"] != "ack":
        raise RuntimeError(f"unexpected reply: {measured}")
    return measured


# -- --functions: each function's first frame next to `import boto3` ---------------------------

FUNCTION_CHILD = r"""
import json, sys
mode = sys.argv[1]
event = json.loads(open(sys.argv[2], encoding="utf-8").read()) if mode != "boto3" else None
import time
started, cpu_started = time.perf_counter(), time.process_time()
if mode == "boto3":
    import boto3
    imported = answered = time.perf_counter()
    result = None
else:
    import app
    imported = time.perf_counter()

    class Context:
        function_name = "naiko-bench-" + mode
        function_version = "$LATEST"
        memory_limit_in_mb = 512
        invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:naiko-bench"
        aws_request_id = "6f1c2d3e-0000-4000-8000-000000000001"

        def get_remaining_time_in_millis(self):
            return 30_000

    result = app.lambda_handler(event, Context())
    answered = time.perf_counter()
cpu = time.process_time() - cpu_started
print(json.dumps({"import_ms": (imported - started) * 1000,
                  "first_ms": (answered - imported) * 1000,
                  "total_ms": (answered - started) * 1000, "cpu_ms": cpu * 1000,
                  "result": result, "modules": len(sys.modules)}))
"""

FUNCTIONS = ("game", "connect", "authorizer", "timer")

BREAKDOWN_CHILD = r"""
import json, sys, time
marks, last = [], time.process_time()
def mark(name):
    global last
    now = time.process_time()
    marks.append([name, (now - last) * 1000])
    last = now
if sys.argv[1] == "boto3":
    import boto3
    mark("import boto3")
    print(json.dumps(marks))
    raise SystemExit
import app
mark("import app (Powertools Logger, Metrics; bootstrap)")
import gc
gc.disable()  # as bootstrap.get_service builds the service
import botocore.session
mark("import botocore.session")
from botocore.config import Config
from naiko_service.bootstrap import BOTO_SETTINGS
session = botocore.session.get_session()
session.create_client("dynamodb", config=Config(**BOTO_SETTINGS))
mark("botocore session + DynamoDB client")
import pydantic
mark("import pydantic")
import naiko.engine
mark("import naiko.engine (state, commands, events)")
import naiko_service.protocol
mark("import naiko_service.protocol (75 models)")
import naiko_service.usecases
mark("import naiko_service.usecases (the rest)")
import naiko_service.aws.dynamodb, naiko_service.aws.gateway, naiko_service.aws.scheduler
import naiko_service.sealing
mark("AWS adapters, sealing (cryptography)")
session.create_client("secretsmanager", config=Config(**BOTO_SETTINGS))
mark("Secrets Manager client")
from naiko_service.bootstrap import state_key_from_secret
state_key_from_secret("k" * 64)
mark("state key: HKDF")
session.create_client("apigatewaymanagementapi", endpoint_url="https://bench.example/bench",
                      config=Config(**BOTO_SETTINGS))
mark("Management API client")
session.create_client("sqs", config=Config(**BOTO_SETTINGS))
mark("SQS client (the timer's, when it arms a wake-up)")
print(json.dumps(marks))
"""
"""``--breakdown``: the parts of the game function's first frame, in the order it takes them
(without the AWS calls), each timed in CPU."""

FLOOR_APP = '''"""The floor of a first frame: what any handler built from these parts costs
(Powertools' logger and metrics, one botocore DynamoDB client, one GetItem), no Naiko code."""
import os

import botocore.session
from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

logger = Logger()
metrics = Metrics(namespace="Naiko")


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event, context):
    client = botocore.session.get_session().create_client("dynamodb")
    item = client.get_item(TableName=os.environ["ACCOUNTS_TABLE"],
                           Key={"player_id": {"S": "alice"}}).get("Item")
    metrics.add_metric(name="Requests", unit=MetricUnit.Count, value=1)
    logger.info("read", extra={"found": item is not None})
    return {"statusCode": 200, "found": item is not None}
'''
"""``floor``: a minimal handler of the parts every Naiko function has (Powertools Logger and
Metrics, a botocore DynamoDB client, one call), so the report shows what those parts alone
cost a new container (docs/deploy.md, "7. Cold start")."""
BENCH_STAGE = "bench"
BENCH_PLAYERS = ("alice", "bob", "carol")  # a new table's min_players


def default_pythons() -> list[str]:
    """``python3.12`` when one is on ``PATH`` (``PYENV_VERSION=3.11.7:3.12.1`` puts pyenv's
    there), then this interpreter."""
    found = [shutil.which("python3.12")]
    return [p for p in found if p] + [sys.executable]


def resolve_python(python: str) -> tuple[str, str]:
    """*python*'s own executable (not a pyenv shim, which starts a shell) and version."""
    done = subprocess.run([python, "-c", "import sys; print(sys.executable); "
                           "print(sys.version.split()[0])"],
                          capture_output=True, text=True, check=True)
    executable, version = done.stdout.split()
    return executable, version


class MotoWorld:
    """A moto server on localhost with the template's tables, the timer queue, the state-key
    secret and a seeded table whose ``next_hand`` wake-up the timer runs fire."""

    def __init__(self, work: Path):
        import logging

        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        sys.path[:0] = [str(ROOT / "layers" / "engine"), str(ROOT / "local"),
                        str(ROOT / "tests")]
        from moto.server import ThreadedMotoServer

        self.server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
        self.server.start()
        host, port = self.server.get_host_and_port()
        self.url = f"http://{host}:{port}"
        self.work = work
        self.posts: dict[str, list[bytes]] = {}
        self._patch_posts()

    def _patch_posts(self) -> None:
        from urllib.parse import unquote

        from moto.apigatewaymanagementapi.models import ApiGatewayManagementApiBackend

        posts = self.posts

        def post_to_connection(backend: Any, data: bytes, connection_id: str) -> None:
            posts.setdefault(unquote(connection_id), []).append(bytes(data))

        ApiGatewayManagementApiBackend.post_to_connection = post_to_connection  # type: ignore[method-assign]

    def stop(self) -> None:
        self.server.stop()

    def environment(self, key_b64: str) -> dict[str, str]:
        """The functions' environment (template.yaml's, pointed at the moto server)."""
        import boto3
        from aws_testing import create_tables_from_template
        from naiko_local.template import load_template, table_environment

        aws = {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
               "AWS_DEFAULT_REGION": "eu-west-1", "AWS_ENDPOINT_URL": self.url}
        os.environ.update(aws)
        dynamodb = boto3.client("dynamodb")
        names = create_tables_from_template(dynamodb, stage=BENCH_STAGE)
        queue = boto3.client("sqs").create_queue(QueueName="naiko-bench-timers")["QueueUrl"]
        secret = boto3.client("secretsmanager").create_secret(
            Name="naiko-bench-state-key", SecretString="k" * 64)["ARN"]  # as CloudFormation's
        self.dynamodb, self.names = dynamodb, names
        env = {**aws, **table_environment(load_template(), names),
               "WEBSOCKET_ENDPOINT": self.url, "TIMER_TRANSPORT": "queue",
               "TIMER_QUEUE_URL": queue, "STATE_KEY_SECRET_ARN": secret,
               "DEFAULT_PAUSE_SECONDS": "1", "POWERTOOLS_SERVICE_NAME": "naiko",
               "POWERTOOLS_METRICS_NAMESPACE": "Naiko", "POWERTOOLS_LOG_LEVEL": "INFO",
               "POWERTOOLS_TRACE_DISABLED": "true",
               "AUTH_PUBLIC_KEY": key_b64, "AUTH_ISSUER": f"naiko-{BENCH_STAGE}",
               "AUTH_AUDIENCE": f"naiko-{BENCH_STAGE}"}
        return env

    def seed(self, env: dict[str, str]) -> dict[str, str]:
        """Players with chips, a table whose first hand has ended; the timer event's file."""
        from naiko_local.stack import LambdaContext
        from naiko_local.template import load_handler
        from naiko_service import bootstrap
        from naiko_service.timer_queue import message_body

        os.environ.update(env)
        bootstrap.reset()
        handlers = {name: load_handler(name) for name in ("connect", "game")}
        for player in BENCH_PLAYERS:
            self.dynamodb.update_item(
                TableName=self.names["AccountsTable"], Key={"player_id": {"S": player}},
                UpdateExpression="ADD balance :c",
                ExpressionAttributeValues={":c": {"N": "1000000"}})

        def event(player: str, route: str, kind: str, body: str | None = None
                  ) -> dict[str, Any]:
            context = {"routeKey": route, "eventType": kind, "connectionId": f"c-{player}",
                       "domainName": "bench.example", "stage": BENCH_STAGE,
                       "messageId": f"m-{player}-{time.monotonic_ns()}",
                       "authorizer": {"principalId": player, "player_id": player}}
            return {"requestContext": context, **({"body": body} if body else {})}

        def send(player: str, **frame: Any) -> dict[str, Any]:
            frame.setdefault("request_id", f"seed-{time.monotonic_ns()}")
            before = len(self.posts.get(f"c-{player}", []))
            handlers["game"].lambda_handler(
                event(player, str(frame["action"]), "MESSAGE", json.dumps(frame)),
                LambdaContext("naiko-bench-seed"))
            replies = [json.loads(b) for b in self.posts[f"c-{player}"][before:]]
            return next(m for m in replies if m.get("request_id") == frame["request_id"])

        for player in BENCH_PLAYERS:
            handlers["connect"].lambda_handler(event(player, "$connect", "CONNECT"),
                                               LambdaContext("naiko-bench-seed"))
        table_id = send("alice", action="create_table", name="bench", variant="NLHE",
                        small_blind=1, big_blind=2, min_buy_in=40, max_buy_in=400)["table_id"]
        for player in BENCH_PLAYERS:
            send(player, action="join_table", table_id=table_id, buy_in=200)
        service = bootstrap.get_service()
        record = service.deps.tables.load(table_id)
        while not any(t.kind == "next_hand" for t in record.timers):  # everyone folds
            hand = record.state.hand
            assert hand is not None and hand.actor is not None, "the seeded hand did not start"
            seat = record.state.seats[hand.actor]
            assert seat is not None
            send(seat.player_id, action="act", table_id=table_id, move="fold")
            record = service.deps.tables.load(table_id)
        timer = next(t for t in record.timers if t.kind == "next_hand")
        self.table_items = self.dynamodb.scan(TableName=self.names["TablesTable"])["Items"]
        records = [{"messageId": "bench-1", "receiptHandle": "bench",
                    "body": message_body(table_id, timer.token, timer.due_ms, "next_hand"),
                    "attributes": {"ApproximateReceiveCount": "1"},
                    "eventSource": "aws:sqs"}]
        bootstrap.reset()
        files = {}
        sources = {"game": "create_table", "connect": "connect",
                   "authorizer": "connect_authorizer"}
        for name, source in sources.items():
            files[name] = json.loads((ROOT / "events" / f"{source}.json").read_text())
        files["timer"] = {"Records": records}
        paths = {}
        for name, data in files.items():
            paths[name] = str(self.work / f"{name}.json")
            Path(paths[name]).write_text(json.dumps(data), encoding="utf-8")
        self.timer_due_ms = timer.due_ms
        return paths

    def restore_table(self) -> None:
        """Put the seeded table back, so the next timer run deals the same next hand."""
        for item in self.table_items:
            self.dynamodb.put_item(TableName=self.names["TablesTable"], Item=item)


def run_function(python: str, mode: str, layer: Path, function: Path | None,
                 event: str | None, env: dict[str, str]) -> dict[str, Any]:
    child_env = {key: value for key, value in os.environ.items()
                 if not key.startswith(("PYTHON", "AWS_", "POWERTOOLS_", "AUTH_"))}
    child_env.update(env)
    path = [str(function)] if function is not None else []
    child_env.update({"PYTHONPATH": os.pathsep.join([*path, str(layer)]),
                      "PYTHONDONTWRITEBYTECODE": "1"})
    done = subprocess.run([python, "-S", "-c", FUNCTION_CHILD, mode, event or ""],
                          capture_output=True, text=True, env=child_env,
                          cwd=str(function or layer), timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"the {mode} run failed:\n{done.stderr[-3000:]}")
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return measured


def check_result(mode: str, measured: dict[str, Any], world: MotoWorld,
                 connection_id: str) -> None:
    result = measured["result"]
    if mode == "boto3":
        return
    if mode == "authorizer":
        ok = (result or {}).get("principalId") == "alice"
    elif mode == "floor":
        ok = result == {"statusCode": 200, "found": True}
    elif mode == "timer":
        ok = result == {"batchItemFailures": []}
    else:
        ok = result == {"statusCode": 200}
    if ok and mode == "game":
        last = json.loads(world.posts[connection_id][-1])
        ok = last.get("type") == "ack"
    if not ok:
        raise RuntimeError(f"unexpected {mode} result: {result}")


def functions_main(runs: int, pythons: list[str], work: Path) -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    from mint_token import generate_keypair, mint

    private_pem, public_b64 = generate_keypair()
    world = MotoWorld(work)
    try:
        env = world.environment(public_b64)
        events = world.seed(env)
        authorizer = json.loads(Path(events["authorizer"]).read_text())
        token = mint(private_pem, "alice", ttl=86_400, stage=BENCH_STAGE)
        authorizer["queryStringParameters"] = {"token": token}
        authorizer["multiValueQueryStringParameters"] = {"token": [token]}
        Path(events["authorizer"]).write_text(json.dumps(authorizer), encoding="utf-8")
        connection_id = json.loads(Path(events["game"]).read_text())["requestContext"][
            "connectionId"]
        layers: dict[str, Path] = {}
        versions: dict[str, str] = {}
        resolved = [resolve_python(python) for python in pythons]
        pythons = [executable for executable, _ in resolved]
        for executable, version in resolved:
            versions[executable] = version
            layers[executable] = build_layer(work / version, executable)
            make_read_only(layers[executable])
        functions: dict[str, Path] = {}
        for name in FUNCTIONS:
            functions[name] = work / "functions" / name
            shutil.copytree(ROOT / "functions" / name, functions[name],
                            ignore=shutil.ignore_patterns("__pycache__"))
            make_read_only(functions[name])
        functions["floor"] = work / "functions" / "floor"
        functions["floor"].mkdir()
        (functions["floor"] / "app.py").write_text(FLOOR_APP, encoding="utf-8")
        make_read_only(functions["floor"])
        events["floor"] = events["connect"]  # any event: the floor reads none of it
        # wait for the seeded wake-up's time, so that no timer run finds it early
        wait_s = world.timer_due_ms / 1000 - time.time()
        if wait_s > 0:
            time.sleep(wait_s + 0.1)
        modes = ("boto3", "floor", *FUNCTIONS)
        print(f"{runs} runs per Python and function, interleaved; AWS calls to moto on "
              f"localhost; {os.uname().machine}")
        results: dict[str, dict[str, list[dict[str, Any]]]] = {
            python: {mode: [] for mode in modes} for python in pythons}
        for i in range(runs):
            for python in pythons:
                order = modes[i % len(modes):] + modes[:i % len(modes)]
                for mode in order:
                    for attempt in range(3):
                        if mode == "timer":
                            world.restore_table()
                        try:
                            measured = run_function(python, mode, layers[python],
                                                    functions.get(mode), events.get(mode), env)
                            break
                        except RuntimeError as error:
                            # on a loaded machine moto can miss the clients' 1 s read timeout
                            if "ReadTimeoutError" not in str(error) or attempt == 2:
                                raise
                            print(f"  ({mode}: a call to moto timed out; a new run instead)")
                    check_result(mode, measured, world, connection_id)
                    results[python][mode].append(measured)
        for python in pythons:
            print()
            print(f"Python {versions[python]}: first frame on a new container = import app + "
                  f"first invocation (wall ms; cpu: the process's CPU time, which other jobs' "
                  f"load hardly changes)")
            print(f"{'':12} {'import app':>15} {'first invocation':>17} {'first frame':>15} "
                  f"{'cpu':>15} {'x import boto3':>22} {'modules':>8}")
            print(f"{'':12} " + " ".join(f"{'min':>7} {'median':>7}" for _ in range(4))
                  + f" {'min':>6} {'median':>6} {'cpu min':>8}")
            keys = ("import_ms", "first_ms", "total_ms", "cpu_ms")
            summary = {mode: {key: (min(r[key] for r in rows),
                                    statistics.median(r[key] for r in rows))
                              for key in keys}
                       for mode, rows in results[python].items()}
            boto, boto_cpu = summary["boto3"]["total_ms"], summary["boto3"]["cpu_ms"]
            for mode in modes:
                label = "import boto3" if mode == "boto3" else mode
                cells = " ".join(f"{low:7.0f} {mid:7.0f}" for low, mid in summary[mode].values())
                low, mid = summary[mode]["total_ms"]
                modules = int(statistics.median(r["modules"] for r in results[python][mode]))
                print(f"{label:12} {cells} {low / boto[0]:6.2f} {mid / boto[1]:6.2f} "
                      f"{summary[mode]['cpu_ms'][0] / boto_cpu[0]:8.2f} {modules:8}")
    finally:
        world.stop()


def breakdown_main(runs: int, python: str, work: Path) -> None:
    executable, version = resolve_python(python)
    layer = build_layer(work / version, executable)
    make_read_only(layer)
    function = work / "functions" / "game"
    shutil.copytree(ROOT / "functions" / "game", function,
                    ignore=shutil.ignore_patterns("__pycache__"))
    make_read_only(function)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("PYTHON", "AWS_", "POWERTOOLS_"))}
    env.update({"PYTHONPATH": os.pathsep.join([str(function), str(layer)]),
                "PYTHONDONTWRITEBYTECODE": "1", "POWERTOOLS_SERVICE_NAME": "naiko",
                "POWERTOOLS_METRICS_NAMESPACE": "Naiko", "POWERTOOLS_TRACE_DISABLED": "true",
                "AWS_DEFAULT_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "bench",
                "AWS_SECRET_ACCESS_KEY": "bench"})
    parts: dict[str, list[float]] = {}
    for i in range(runs):
        for mode in (("boto3", "game") if i % 2 == 0 else ("game", "boto3")):
            done = subprocess.run([executable, "-S", "-c", BREAKDOWN_CHILD, mode],
                                  capture_output=True, text=True, env=env,
                                  cwd=str(function), timeout=120)
            if done.returncode != 0:
                raise RuntimeError(f"the {mode} run failed:\n{done.stderr[-3000:]}")
            for name, ms in json.loads(done.stdout.strip().splitlines()[-1]):
                parts.setdefault(name, []).append(ms)
    boto = min(parts.pop("import boto3"))
    print(f"\nPython {version}: the game function's first frame, part by part (CPU ms, "
          f"{runs} runs; no AWS call); import boto3: min {boto:.1f}")
    print(f"{'part':52} {'min':>7} {'median':>7} {'x boto3':>8}")
    total_min = total_median = 0.0
    for name, values in parts.items():
        low, mid = min(values), statistics.median(values)
        total_min, total_median = total_min + low, total_median + mid
        print(f"{name:52} {low:7.1f} {mid:7.1f} {low / boto:8.2f}")
    print(f"{'sum':52} {total_min:7.1f} {total_median:7.1f} {total_min / boto:8.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="runs per variant (default 9)")
    parser.add_argument("--keep", type=Path, help="build in DIR and keep it (default: a temp dir)")
    parser.add_argument("--functions", action="store_true",
                        help="each function's first frame next to `import boto3` (see above)")
    parser.add_argument("--python", action="append",
                        help="with --functions: a Python to measure (repeatable; default: "
                             "python3.12 if on PATH, and this one)")
    parser.add_argument("--breakdown", action="store_true",
                        help="the game function's first frame part by part, in CPU time "
                             "(see above; the first --python, default python3.12 if on PATH)")
    args = parser.parse_args(argv)
    work = args.keep or Path(tempfile.mkdtemp(prefix="naiko-cold-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.breakdown:
        try:
            breakdown_main(args.runs, (args.python or default_pythons())[0], work)
        finally:
            if args.keep is None:
                make_writable(work)
                shutil.rmtree(work, ignore_errors=True)
        return 0
    if args.functions:
        try:
            functions_main(args.runs, args.python or default_pythons(), work)
        finally:
            if args.keep is None:
                make_writable(work)
                shutil.rmtree(work, ignore_errors=True)
        return 0
    try:
        after = build_layer(work)
        before = source_only_copy(after, work / "before" / "python")
        function = work / "function"
        shutil.copytree(ROOT / "functions" / "game", function,
                        ignore=shutil.ignore_patterns("__pycache__"))
        support = work / "support"
        support.mkdir()
        shutil.copy2(ROOT / "tests" / "service_testing.py", support)
        event = support / "create_table.json"
        shutil.copy2(ROOT / "events" / "create_table.json", event)
        trees = {"before": before, "after": after}
        for tree in (*trees.values(), function, support):
            make_read_only(tree)
        print(f"Python {sys.version.split()[0]} on {os.uname().machine}; "
              f"{args.runs} runs per variant, interleaved")
        for name, tree in trees.items():
            print(f"  {name:6}  {tree_stats(tree)}")
        results: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        for i in range(args.runs):
            order = ("before", "after") if i % 2 == 0 else ("after", "before")
            for name in order:
                results[name].append(run_once(trees[name], function, support, event))
        print()
        print("first frame on a new container: import app + in-memory service + create_table")
        print(f"{'variant':8} {'import app':>21} {'first request':>21} {'total':>21}")
        print(f"{'':8} {'min':>10} {'median':>10} {'min':>10} {'median':>10} "
              f"{'min':>10} {'median':>10}")
        summary: dict[str, dict[str, tuple[float, float]]] = {}
        for name, runs in results.items():
            summary[name] = {key: (min(r[key] for r in runs),
                                   statistics.median(r[key] for r in runs))
                             for key in ("import_ms", "first_ms", "total_ms")}
            cells = " ".join(f"{low:8.0f}ms {mid:8.0f}ms"
                             for low, mid in summary[name].values())
            print(f"{name:8} {cells}")
        cells = " ".join(
            f"{summary['after'][key][0] / summary['before'][key][0]:10.2f} "
            f"{summary['after'][key][1] / summary['before'][key][1]:10.2f}"
            for key in ("import_ms", "first_ms", "total_ms"))
        print(f"{'ratio':8} {cells}   (after / before)")
        modules = {name: int(statistics.median(r["modules"] for r in runs))
                   for name, runs in results.items()}
        print(f"modules loaded by the first frame: {modules['before']} (before), "
              f"{modules['after']} (after)")
    finally:
        if args.keep is None:
            make_writable(work)
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
