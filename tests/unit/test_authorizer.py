"""The ``$connect`` Lambda authorizer (functions/authorizer/app.py) on the sample event."""

from __future__ import annotations

import copy
import importlib.util
import io
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from naiko_service.auth import (
    Ed25519TokenVerifier,
    InvalidToken,
    JwksTokenVerifier,
    b64url_decode,
    b64url_encode,
    public_key_to_base64,
    sign_token,
    stage_claim,
)

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "functions" / "authorizer" / "app.py"
SAMPLE_EVENT = ROOT / "events" / "connect_authorizer.json"
ISSUER = "naiko"
AUDIENCE = "naiko-ws"


def load_app() -> ModuleType:
    spec = importlib.util.spec_from_file_location("naiko_authorizer_app", APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class FakeLambdaContext:
    function_name: str = "naiko-dev-authorizer"
    memory_limit_in_mb: int = 256
    invoked_function_arn: str = \
        "arn:aws:lambda:eu-west-1:123456789012:function:naiko-dev-authorizer"
    aws_request_id: str = "6f1c2d3e-0000-4000-8000-000000000001"


@pytest.fixture(scope="module")
def key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def app() -> ModuleType:
    return load_app()


@pytest.fixture
def logs(app: ModuleType) -> Iterator[io.StringIO]:
    """What the Powertools logger writes during one test (one JSON object per line)."""
    stream = io.StringIO()
    handler = app.logger.registered_handler
    previous = handler.setStream(stream)
    yield stream
    handler.setStream(previous)


@pytest.fixture
def configured(app: ModuleType, key: Ed25519PrivateKey,
               monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.setenv("AUTH_PUBLIC_KEY", public_key_to_base64(key.public_key()))
    monkeypatch.setenv("AUTH_ISSUER", ISSUER)
    monkeypatch.setenv("AUTH_AUDIENCE", AUDIENCE)
    monkeypatch.delenv("AUTH_PROVIDER", raising=False)
    app.reset_verifier()
    yield app
    app.reset_verifier()


def token_for(key: Ed25519PrivateKey, player: str = "alice", *, ttl: int = 600,
              issued: int | None = None, issuer: str | None = ISSUER,
              audience: str | None = AUDIENCE) -> str:
    iat = int(time.time()) if issued is None else issued
    return sign_token(key, player, issued_at=iat, expires_at=iat + ttl, issuer=issuer,
                      audience=audience)


def event_with(token: str | None) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(SAMPLE_EVENT.read_text())
    if token is None:
        event["queryStringParameters"] = None
        event["multiValueQueryStringParameters"] = None
    else:
        event["queryStringParameters"]["token"] = token
        event["multiValueQueryStringParameters"]["token"] = [token]
    return event


def log_records(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def test_sample_event_has_the_websocket_request_shape() -> None:
    event = json.loads(SAMPLE_EVENT.read_text())
    assert event["type"] == "REQUEST"
    assert event["methodArn"].startswith("arn:aws:execute-api:")
    assert event["methodArn"].endswith("/$connect")
    assert "token" in event["queryStringParameters"]
    context = event["requestContext"]
    assert context["routeKey"] == "$connect" and context["eventType"] == "CONNECT"
    for name in ("connectionId", "domainName", "stage", "apiId", "requestId"):
        assert context[name]
    assert event["methodArn"].split(":")[5].split("/")[:2] == [context["apiId"],
                                                               context["stage"]]


def test_allows_a_valid_token(configured: ModuleType, key: Ed25519PrivateKey,
                              logs: io.StringIO) -> None:
    token = token_for(key, "alice")
    event = event_with(token)
    response = configured.lambda_handler(event, FakeLambdaContext())
    assert response == {
        "principalId": "alice",
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [{"Action": "execute-api:Invoke", "Effect": "Allow",
                           "Resource": event["methodArn"]}],
        },
        "context": {"player_id": "alice"},
    }
    records = log_records(logs)
    assert [r["message"] for r in records] == ["connection authorized"]
    assert records[0]["player_id"] == "alice"
    assert records[0]["service"] == "naiko"
    assert records[0]["connection_id"] == event["requestContext"]["connectionId"]
    assert token not in logs.getvalue()


def test_r8_4_a_token_for_a_bot_seat_is_denied_with_401(
        configured: ModuleType, key: Ed25519PrivateKey, logs: io.StringIO) -> None:
    """R8.4: a BOT's seat is the server's alone. A token whose subject is in the BOT namespace
    (``bot-…``, any case), even one signed with the stage's own key, opens no connection;
    ids that merely contain "bot" are ordinary players (the local stack's client bots)."""
    for subject in ("bot-1", "bot-99", "Bot-3", "BOT-x"):
        with pytest.raises(Exception, match="^Unauthorized$"):
            configured.lambda_handler(event_with(signed_claims(key, sub=subject)),
                                      FakeLambdaContext())
    assert [r["reason"] for r in log_records(logs)] == ["reserved_subject"] * 4
    for subject in ("robot-1", "bot1", "abot-1", "clientbot-2"):
        assert configured.lambda_handler(event_with(token_for(key, subject)),
                                         FakeLambdaContext())["principalId"] == subject


def test_an_aud_list_holding_the_stage_is_accepted(configured: ModuleType,
                                                   key: Ed25519PrivateKey) -> None:
    """RFC 7519 §4.1.3: ``aud`` may be a list; it is accepted when it holds the audience."""
    token = signed_claims(key, aud=["another-service", AUDIENCE])
    assert configured.lambda_handler(event_with(token),
                                     FakeLambdaContext())["principalId"] == "alice"


def test_identity_comes_only_from_the_token(configured: ModuleType, key: Ed25519PrivateKey,
                                           logs: io.StringIO) -> None:
    event = event_with(token_for(key, "alice"))
    event["queryStringParameters"]["player_id"] = "mallory"
    event["headers"]["X-Player-Id"] = "mallory"
    event["requestContext"]["authorizer"] = {"player_id": "mallory"}
    response = configured.lambda_handler(event, FakeLambdaContext())
    assert response["principalId"] == "alice"
    assert response["context"] == {"player_id": "alice"}


def signed_claims(key: Ed25519PrivateKey, **claims: Any) -> str:
    """A v1 token over *claims* (over the defaults: alice, now, 10 minutes, the issuer and the
    audience), signed straight from the documented format: what :func:`sign_token` refuses to
    mint (a BOT's subject, an ``aud`` list) can still be forged by whoever holds a key."""
    now = int(time.time())
    payload = {"sub": "alice", "iat": now, "exp": now + 600, "iss": ISSUER, "aud": AUDIENCE,
               **claims}
    signing_input = "v1." + b64url_encode(json.dumps(payload, separators=(",", ":")).encode())
    return f"{signing_input}.{b64url_encode(key.sign(signing_input.encode()))}"


def _bad_tokens(key: Ed25519PrivateKey) -> dict[str, str | None]:
    other = Ed25519PrivateKey.generate()
    good = token_for(key)
    version, payload, signature = good.split(".")
    claims = json.loads(b64url_decode(payload))
    claims["sub"] = "mallory"
    tampered = b64url_encode(json.dumps(claims, separators=(",", ":")).encode())
    now = int(time.time())
    return {
        "missing_token": None,
        "malformed_token": "not-a-token",
        "bad_signature": token_for(other),
        "bad_signature/tampered": f"{version}.{tampered}.{signature}",
        "expired_token": token_for(key, issued=now - 7200, ttl=3600),
        "not_yet_valid": token_for(key, issued=now + 3600),
        "wrong_issuer": token_for(key, issuer="evil"),
        "wrong_audience": token_for(key, audience="naiko-admin"),
        "wrong_audience/list": signed_claims(key, aud=["naiko-admin", "other"]),
        "reserved_subject": signed_claims(key, sub="bot-1"),
        "reserved_subject/upper": signed_claims(key, sub="BOT-12"),
    }


@pytest.mark.parametrize("case", [
    "missing_token", "malformed_token", "bad_signature", "bad_signature/tampered",
    "expired_token", "not_yet_valid", "wrong_issuer", "wrong_audience", "wrong_audience/list",
    "reserved_subject", "reserved_subject/upper",
])
def test_denies_bad_tokens_with_401(configured: ModuleType, key: Ed25519PrivateKey,
                                    logs: io.StringIO, case: str) -> None:
    token = _bad_tokens(key)[case]
    with pytest.raises(Exception) as caught:  # noqa: B017 (API Gateway matches the message)
        configured.lambda_handler(event_with(token), FakeLambdaContext())
    assert type(caught.value) is Exception and str(caught.value) == "Unauthorized"
    assert caught.value.__suppress_context__
    records = log_records(logs)
    assert [(r["message"], r["reason"]) for r in records] == [
        ("connection denied", case.split("/")[0])]
    assert "player_id" not in records[0]
    if token:
        assert token not in logs.getvalue()


def test_denies_a_token_without_its_query_parameter(configured: ModuleType,
                                                    key: Ed25519PrivateKey,
                                                    logs: io.StringIO) -> None:
    event = event_with(token_for(key))
    event["queryStringParameters"] = {"Token": event["queryStringParameters"]["token"]}
    with pytest.raises(Exception, match="^Unauthorized$"):
        configured.lambda_handler(event, FakeLambdaContext())
    assert log_records(logs)[0]["reason"] == "missing_token"


def test_denies_a_bad_subject(configured: ModuleType, key: Ed25519PrivateKey,
                              logs: io.StringIO) -> None:
    iat = int(time.time())
    payload = json.dumps({"sub": "a b", "iat": iat, "exp": iat + 60, "iss": ISSUER,
                          "aud": AUDIENCE}, separators=(",", ":")).encode()
    signing_input = f"v1.{b64url_encode(payload)}"
    token = f"{signing_input}.{b64url_encode(key.sign(signing_input.encode()))}"
    with pytest.raises(Exception, match="^Unauthorized$"):
        configured.lambda_handler(event_with(token), FakeLambdaContext())
    assert log_records(logs)[0]["reason"] == "bad_subject"


def test_denies_an_event_without_method_arn(configured: ModuleType, key: Ed25519PrivateKey,
                                            logs: io.StringIO) -> None:
    event = event_with(token_for(key))
    del event["methodArn"]
    with pytest.raises(Exception, match="^Unauthorized$"):
        configured.lambda_handler(event, FakeLambdaContext())
    record = log_records(logs)[0]
    assert (record["level"], record["reason"], record["error"]) == (
        "ERROR", "internal_error", "KeyError")


def test_fails_closed_when_misconfigured_and_recovers(app: ModuleType, key: Ed25519PrivateKey,
                                                      logs: io.StringIO,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTH_PUBLIC_KEY", raising=False)
    monkeypatch.delenv("AUTH_PROVIDER", raising=False)
    monkeypatch.delenv("AUTH_ISSUER", raising=False)
    monkeypatch.delenv("AUTH_AUDIENCE", raising=False)
    app.reset_verifier()
    token = token_for(key, issuer=None, audience=None)
    with pytest.raises(Exception, match="^Unauthorized$"):
        app.lambda_handler(event_with(token), FakeLambdaContext())
    record = log_records(logs)[0]
    assert (record["level"], record["reason"]) == ("ERROR", "misconfigured")
    assert "AUTH_PUBLIC_KEY" in record["error"]
    # A failed build is not cached: fixing the configuration fixes the next call.
    monkeypatch.setenv("AUTH_PUBLIC_KEY", public_key_to_base64(key.public_key()))
    assert app.lambda_handler(event_with(token), FakeLambdaContext())["principalId"] == "alice"
    app.reset_verifier()


def test_verifier_is_built_once_per_container(configured: ModuleType, key: Ed25519PrivateKey,
                                              logs: io.StringIO,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    builds: list[object] = []
    real = configured.verifier_from_env

    def counting(env: Any) -> Any:
        builds.append(env)
        return real(env)

    monkeypatch.setattr(configured, "verifier_from_env", counting)
    for player in ("alice", "bob", "carol"):
        response = configured.lambda_handler(event_with(token_for(key, player)),
                                             FakeLambdaContext())
        assert response["principalId"] == player
    assert len(builds) == 1


def test_verifier_from_env(app: ModuleType, key: Ed25519PrivateKey) -> None:
    public = public_key_to_base64(key.public_key())
    naiko = app.verifier_from_env({"AUTH_PUBLIC_KEY": public, "AUTH_ISSUER": "i"})
    assert isinstance(naiko, Ed25519TokenVerifier)
    assert (naiko.issuer, naiko.audience) == ("i", None)
    oidc = app.verifier_from_env({
        "AUTH_PROVIDER": "oidc", "AUTH_ISSUER": "https://cognito-idp.eu-west-1.amazonaws.com/p",
        "AUTH_AUDIENCE": "client", "AUTH_AUDIENCE_CLAIM": "client_id",
        "AUTH_TOKEN_USE": "access"})
    assert isinstance(oidc, JwksTokenVerifier)
    assert (oidc.issuer, oidc.audience, oidc.audience_claim, oidc.token_use) == (
        "https://cognito-idp.eu-west-1.amazonaws.com/p", "client", "client_id", "access")
    for bad in ({}, {"AUTH_PUBLIC_KEY": "  "}, {"AUTH_PUBLIC_KEY": "bm90IGEga2V5"},
                {"AUTH_PROVIDER": "oidc"}, {"AUTH_PROVIDER": "saml", "AUTH_PUBLIC_KEY": public},
                {"AUTH_PROVIDER": "oidc", "AUTH_ISSUER": "http://plain.example"}):
        with pytest.raises(ValueError):
            app.verifier_from_env(bad)


def test_verifier_from_env_rotation_settings(app: ModuleType, key: Ed25519PrivateKey) -> None:
    public = public_key_to_base64(key.public_key())
    old = Ed25519PrivateKey.generate()
    previous = public_key_to_base64(old.public_key())
    both = app.verifier_from_env({"AUTH_PUBLIC_KEY": public, "AUTH_PREVIOUS_PUBLIC_KEY":
                                  f" {previous}, ", "AUTH_MAX_TOKEN_SECONDS": "600"})
    assert both.max_lifetime == 600
    assert both.verify(token_for(old, ttl=600, issuer=None, audience=None), time.time()) \
        == "alice"
    only = app.verifier_from_env({"AUTH_PUBLIC_KEY": public, "AUTH_PREVIOUS_PUBLIC_KEY": ""})
    assert only.max_lifetime is None
    with pytest.raises(InvalidToken):
        only.verify(token_for(old, issuer=None, audience=None), time.time())
    for bad in ({"AUTH_MAX_TOKEN_SECONDS": "0"}, {"AUTH_MAX_TOKEN_SECONDS": "1h"},
                {"AUTH_PREVIOUS_PUBLIC_KEY": "bm90IGEga2V5"}):
        with pytest.raises(ValueError):
            app.verifier_from_env({"AUTH_PUBLIC_KEY": public, **bad})


def test_a_token_for_another_stage_is_denied_with_401(
        app: ModuleType, key: Ed25519PrivateKey, monkeypatch: pytest.MonkeyPatch,
        logs: io.StringIO) -> None:
    """The authorizer as template.yaml configures it for stage dev (iss = aud = naiko-dev)."""
    monkeypatch.setenv("AUTH_PUBLIC_KEY", public_key_to_base64(key.public_key()))
    monkeypatch.setenv("AUTH_ISSUER", stage_claim("dev"))
    monkeypatch.setenv("AUTH_AUDIENCE", stage_claim("dev"))
    monkeypatch.delenv("AUTH_PROVIDER", raising=False)
    app.reset_verifier()
    try:
        prod = token_for(key, issuer=stage_claim("prod"), audience=stage_claim("prod"))
        with pytest.raises(Exception, match="^Unauthorized$"):
            app.lambda_handler(event_with(prod), FakeLambdaContext())
        denied = [r for r in log_records(logs) if r.get("message") == "connection denied"]
        assert [r["reason"] for r in denied] == ["wrong_issuer"]
        dev = token_for(key, issuer=stage_claim("dev"), audience=stage_claim("dev"))
        assert app.lambda_handler(event_with(dev), FakeLambdaContext())["principalId"] == "alice"
    finally:
        app.reset_verifier()


def test_event_is_not_mutated(configured: ModuleType, key: Ed25519PrivateKey,
                              logs: io.StringIO) -> None:
    event = event_with(token_for(key))
    before = copy.deepcopy(event)
    configured.lambda_handler(event, FakeLambdaContext())
    assert event == before


def test_module_import_is_cheap() -> None:
    """Importing the handler loads neither boto3 nor cryptography (that waits for the first
    call)."""
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('app', {str(APP)!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        "print(sorted(m for m in ('boto3', 'cryptography') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True,
                          env={"PYTHONPATH": str(ROOT / "layers" / "engine"),
                               "PATH": "/usr/bin:/bin"})
    assert done.stdout.strip() == "[]"


# -- issue 23 item 4: junk is refused before any key, crypto or call out ------------------------

class SpyVerifier:
    """A verifier that records each token it is asked about (and refuses it)."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def verify(self, token: str, now: float) -> str:
        self.calls.append(token)
        raise InvalidToken("bad_signature", "spy")


def _junk_tokens(key: Ed25519PrivateKey) -> dict[str, str | None]:
    """Tokens whose shape no v1 token has: refused by string checks alone."""
    good = token_for(key)
    version, payload, signature = good.split(".")
    return {
        "missing": None,
        "empty": "",
        "one part": "not-a-token",
        "four parts": good + ".x",
        "oversized": "v1." + "A" * 5000 + "." + signature,
        "not ascii": f"v1.{payload}.{signature[:-1]}é",
        "other version": f"v2.{payload}.{signature}",
        "short signature": f"{version}.{payload}.{signature[:43]}",
        "long signature": f"{version}.{payload}.{signature}AAAA",
        "non-canonical signature": f"{version}.{payload}.{signature[:-1]}B",
        "padded payload": f"{version}.{payload}==.{signature}",
        "bad alphabet": f"{version}.{payload[:-1]}+.{signature}",
        "JWT shape": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0." + "A" * 342,
    }


@pytest.mark.parametrize("case", list(_junk_tokens(Ed25519PrivateKey.generate())))
def test_malformed_tokens_are_refused_without_calling_the_verifier(
        configured: ModuleType, key: Ed25519PrivateKey, logs: io.StringIO,
        monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    spy = SpyVerifier()
    built: list[object] = []
    monkeypatch.setattr(configured, "_verifier", None)
    monkeypatch.setattr(configured, "verifier_from_env", lambda env: built.append(env) or spy)
    token = _junk_tokens(key)[case]
    with pytest.raises(Exception, match="^Unauthorized$"):
        configured.lambda_handler(event_with(token), FakeLambdaContext())
    assert spy.calls == [] and built == []  # neither built nor asked
    (record,) = log_records(logs)
    assert record["message"] == "connection denied"
    assert record["reason"] == ("missing_token" if token in (None, "") else "malformed_token")
    # ...and the full verifier refuses each of them with the same code.
    verifier = Ed25519TokenVerifier(key.public_key())
    with pytest.raises(InvalidToken) as refused:
        verifier.verify(token, time.time())  # type: ignore[arg-type]
    assert refused.value.code == record["reason"]


def test_a_well_shaped_token_reaches_the_verifier(configured: ModuleType, key: Ed25519PrivateKey,
                                                  logs: io.StringIO,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    spy = SpyVerifier()
    monkeypatch.setattr(configured, "_verifier", spy)
    other = token_for(Ed25519PrivateKey.generate())
    with pytest.raises(Exception, match="^Unauthorized$"):
        configured.lambda_handler(event_with(other), FakeLambdaContext())
    assert spy.calls == [other]
    assert log_records(logs)[0]["reason"] == "bad_signature"


def test_oidc_tokens_are_shape_checked_as_jwts(app: ModuleType) -> None:
    from naiko_service.auth import check_token_shape

    jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0." + "A" * 342
    assert check_token_shape(jwt, "oidc") == jwt
    for junk in ("v1.e30", "a.b.c.d", "e+J.e30.AA", "é.e30.AA"):
        with pytest.raises(InvalidToken):
            check_token_shape(junk, "oidc")


def test_junk_handshakes_never_import_cryptography() -> None:
    """A fresh container that only ever sees junk never loads ``cryptography`` (the verifier,
    its key and the signature check wait for a token of the right shape)."""
    code = (
        "import importlib.util, sys, types\n"
        f"spec = importlib.util.spec_from_file_location('app', {str(APP)!r})\n"
        "app = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(app)\n"
        "context = types.SimpleNamespace(function_name='f', memory_limit_in_mb=256,\n"
        "    invoked_function_arn='arn:aws:lambda:eu-west-1:1:function:f', aws_request_id='r')\n"
        "for token in ('', 'x', 'v1.e30.' + 'A' * 40, 'v2.e30.' + 'A' * 86, 'v1.' + 'A' * 9999):\n"
        "    event = {'methodArn': 'arn:aws:execute-api:eu-west-1:1:api/dev/$connect',\n"
        "             'requestContext': {'connectionId': 'c'},\n"
        "             'queryStringParameters': {'token': token}}\n"
        "    try:\n"
        "        app.lambda_handler(event, context)\n"
        "    except Exception as error:\n"
        "        assert str(error) == 'Unauthorized'\n"
        "print(sorted(m for m in ('boto3', 'cryptography') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True,
                          env={"PYTHONPATH": str(ROOT / "layers" / "engine"),
                               "PATH": "/usr/bin:/bin", "AUTH_PUBLIC_KEY": "A" * 43 + "="})
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_with_the_edge_on_a_handshake_around_it_is_refused_first(
        configured: ModuleType, key: Ed25519PrivateKey, logs: io.StringIO,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """EdgeProtection on: CloudFront adds X-Naiko-Edge; a handshake sent straight to the
    execute-api address (around AWS WAF's rate rule) lacks it and is refused before its token
    is looked at, however good."""
    secret = "s" * 43
    monkeypatch.setenv("EDGE_ORIGIN_SECRET", secret)
    spy = SpyVerifier()
    monkeypatch.setattr(configured, "_verifier", spy)
    for headers in ({}, {"X-Naiko-Edge": "wrong"}, {"X-Naiko-Edge": secret[:-1]}):
        event = event_with(token_for(key))
        event["headers"].update(headers)
        with pytest.raises(Exception, match="^Unauthorized$"):
            configured.lambda_handler(event, FakeLambdaContext())
    assert spy.calls == []
    assert [r["reason"] for r in log_records(logs)] == ["not_via_edge"] * 3
    monkeypatch.setattr(configured, "_verifier", None)
    event = event_with(token_for(key))
    event["headers"]["x-naiko-edge"] = secret  # any letter case: headers are case-blind
    assert configured.lambda_handler(event, FakeLambdaContext())["principalId"] == "alice"


def _emf(out: str) -> list[str]:
    """The metric names of the EMF documents in *out*, in order."""
    names = []
    for line in out.splitlines():
        if line.startswith("{") and '"_aws"' in line:
            document = json.loads(line)
            names += [m["Name"] for m in document["_aws"]["CloudWatchMetrics"][0]["Metrics"]]
    return names


def test_each_outcome_is_counted_for_the_alarm(configured: ModuleType, key: Ed25519PrivateKey,
                                               logs: io.StringIO,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23 item 6: AuthDeniedAlarm watches AuthDenied against AuthAllowed (a wrong
    AuthPublicKey denies everyone) and AuthMisconfigured; junk is counted apart."""
    capsys.readouterr()
    configured.lambda_handler(event_with(token_for(key)), FakeLambdaContext())
    for token in (token_for(Ed25519PrivateKey.generate()), "junk"):
        with pytest.raises(Exception, match="^Unauthorized$"):
            configured.lambda_handler(event_with(token), FakeLambdaContext())
    monkeypatch.delenv("AUTH_PUBLIC_KEY")
    configured.reset_verifier()
    with pytest.raises(Exception, match="^Unauthorized$"):
        configured.lambda_handler(event_with(token_for(key)), FakeLambdaContext())
    assert _emf(capsys.readouterr().out) == [
        "AuthAllowed", "AuthDenied", "AuthRejectedCheaply", "AuthMisconfigured"]
