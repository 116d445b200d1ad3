#!/usr/bin/env python3
"""What a handshake costs the ``$connect`` authorizer (``functions/authorizer/app.py``), warm:
junk refused by its shape (issue 23 item 4: no verifier, no crypto) against a well-shaped token
refused by its signature and a valid token verified, each through the real handler.

    .venv/bin/python scripts/bench_authorizer.py [--calls 2000] [--repeat 5] [--cold-runs 3]

Prints microseconds per handshake (the best of ``--repeat`` runs of ``--calls``) and the ratio
of a full verification to a cheap rejection, then the first handshake of a fresh process
(``--cold-runs`` each, the median: the module imported, then one junk or one valid token).
Figures: docs/benchmarks.md. No AWS account.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import logging
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "layers" / "engine"))

from naiko_service.auth import (  # noqa: E402
    Ed25519TokenVerifier,
    InvalidToken,
    check_token_shape,
    public_key_to_base64,
    sign_token,
)


def load_app() -> ModuleType:
    spec = importlib.util.spec_from_file_location("naiko_authorizer_app",
                                                  ROOT / "functions/authorizer/app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def event(token: str) -> dict[str, Any]:
    return {"type": "REQUEST", "methodArn": "arn:aws:execute-api:eu-west-1:1:api/dev/$connect",
            "headers": {"Host": "api.execute-api.eu-west-1.amazonaws.com"},
            "requestContext": {"connectionId": "bench=", "routeKey": "$connect"},
            "queryStringParameters": {"token": token}}


def per_call_us(app: ModuleType, token: str, calls: int, repeat: int) -> float:
    context = SimpleNamespace(function_name="naiko-bench-authorizer", memory_limit_in_mb=512,
                              invoked_function_arn="arn:aws:lambda:eu-west-1:1:function:f",
                              aws_request_id="bench")
    the_event = event(token)
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(calls):
            try:
                app.lambda_handler(the_event, context)
            except Exception as error:  # noqa: BLE001 (a refusal is the Unauthorized exception)
                if str(error) != "Unauthorized":
                    raise
        best = min(best, time.perf_counter() - started)
    return best / calls * 1e6


def checks_us(check: Any, token: str, calls: int, repeat: int) -> float:
    """Microseconds of *check* (token) alone, best of *repeat* runs of *calls*."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(calls):
            try:
                check(token)
            except InvalidToken:
                pass
        best = min(best, time.perf_counter() - started)
    return best / calls * 1e6


COLD = """
import importlib.util, io, sys, time, types
started = time.perf_counter()
spec = importlib.util.spec_from_file_location("app", {app!r})
app = importlib.util.module_from_spec(spec)
spec.loader.exec_module(app)
imported = time.perf_counter()
app.logger.registered_handler.setStream(io.StringIO())
context = types.SimpleNamespace(function_name="f", memory_limit_in_mb=512,
    invoked_function_arn="arn:aws:lambda:eu-west-1:1:function:f", aws_request_id="r")
event = {{"methodArn": "arn:aws:execute-api:eu-west-1:1:api/dev/$connect",
          "requestContext": {{"connectionId": "c"}},
          "queryStringParameters": {{"token": {token!r}}}}}
stdout, sys.stdout = sys.stdout, io.StringIO()
try:
    app.lambda_handler(event, context)
except Exception:
    pass
sys.stdout = stdout
print((time.perf_counter() - imported) * 1000, "cryptography" in sys.modules)
"""


def cold_ms(token: str, runs: int, env: dict[str, str]) -> tuple[float, bool]:
    """Median milliseconds of a fresh process's first handshake with *token* (after the
    handler's import), and whether it loaded ``cryptography``."""
    times, loaded = [], False
    for _ in range(runs):
        code = COLD.format(app=str(ROOT / "functions/authorizer/app.py"), token=token)
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env={**os.environ, **env, "PYTHONPATH": str(
                                  ROOT / "layers" / "engine")})
        ms, crypto = done.stdout.split()
        times.append(float(ms))
        loaded = loaded or crypto == "True"
    return statistics.median(times), loaded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="handshakes per run")
    parser.add_argument("--repeat", type=int, default=5, help="runs; the best is printed")
    parser.add_argument("--cold-runs", type=int, default=3,
                        help="fresh processes per case for the first handshake (0: none)")
    args = parser.parse_args(argv)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    os.environ.update({"AUTH_PUBLIC_KEY": public_key_to_base64(key.public_key()),
                       "AUTH_ISSUER": "naiko-bench", "AUTH_AUDIENCE": "naiko-bench",
                       "POWERTOOLS_METRICS_NAMESPACE": "Naiko"})
    now = int(time.time())
    good = sign_token(key, "alice", issued_at=now, expires_at=now + 3600,
                      issuer="naiko-bench", audience="naiko-bench")
    forged = sign_token(Ed25519PrivateKey.generate(), "alice", issued_at=now,
                        expires_at=now + 3600, issuer="naiko-bench", audience="naiko-bench")
    version, payload, signature = good.split(".")
    cases = {
        "junk (one part)": "x" * 200,
        "junk (wrong signature size)": f"{version}.{payload}.{signature[:40]}",
        "well-shaped, bad signature": forged,
        "valid token": good,
    }
    app = load_app()
    # The logger and the metrics write a line per call: to a sink, as a function's stdout.
    sink = io.StringIO()
    app.logger.registered_handler.setStream(sink)
    logging.getLogger("aws_lambda_powertools").setLevel(logging.ERROR)
    stdout, sys.stdout = sys.stdout, sink
    try:
        results = {name: per_call_us(app, token, args.calls, args.repeat)
                   for name, token in cases.items()}
    finally:
        sys.stdout = stdout
    print(f"authorizer handshakes, warm, best of {args.repeat} x {args.calls} "
          f"(Python {sys.version.split()[0]}), through the handler (logs and metrics included):")
    for name, us in results.items():
        print(f"  {name:<30} {us:8.1f} us")
    cheap = max(results["junk (one part)"], results["junk (wrong signature size)"])
    print(f"full verification / cheap rejection: {results['valid token'] / cheap:.1f}x "
          f"(bad signature: {results['well-shaped, bad signature'] / cheap:.1f}x)")
    verifier = Ed25519TokenVerifier(key.public_key(), issuer="naiko-bench",
                                    audience="naiko-bench")
    shape = checks_us(check_token_shape, cases["junk (wrong signature size)"], args.calls,
                      args.repeat)
    full = checks_us(lambda token: verifier.verify(token, time.time()), good, args.calls,
                     args.repeat)
    print(f"the checks alone: shape {shape:.1f} us, Ed25519 verify {full:.1f} us "
          f"({full / shape:.0f}x)")
    if args.cold_runs:
        env = {k: os.environ[k] for k in ("AUTH_PUBLIC_KEY", "AUTH_ISSUER", "AUTH_AUDIENCE")}
        junk_ms, junk_crypto = cold_ms(cases["junk (one part)"], args.cold_runs, env)
        good_ms, good_crypto = cold_ms(good, args.cold_runs, env)
        print(f"first handshake of a fresh process (median of {args.cold_runs}, after the "
              f"import): junk {junk_ms:.1f} ms (cryptography loaded: {junk_crypto}), "
              f"valid token {good_ms:.1f} ms (cryptography loaded: {good_crypto}): "
              f"{good_ms / junk_ms:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
