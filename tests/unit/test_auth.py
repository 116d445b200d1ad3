"""Tokens: the v1 format, every failure code, the OIDC (JWKS) verifier and the mint script."""

from __future__ import annotations

import ast
import base64
import importlib.util
import json
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.hashes import SHA256
from naiko_service import auth
from naiko_service.auth import (
    ERROR_CODES,
    Ed25519TokenVerifier,
    InvalidToken,
    JwksTokenVerifier,
    TokenVerifier,
    b64url_decode,
    b64url_encode,
    sign_token,
)

ROOT = Path(__file__).resolve().parents[2]
MINT_SCRIPT = ROOT / "scripts" / "mint_token.py"

NOW = 1_700_000_000
ISSUER = "naiko"
AUDIENCE = "naiko-ws"
LEEWAY = auth.DEFAULT_LEEWAY_SECONDS

# The test vector of docs/auth.md (Ed25519 signatures are deterministic).
VECTOR_SEED = bytes(range(32))
VECTOR_PUBLIC_KEY = "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg="
VECTOR_PAYLOAD = (b'{"sub":"alice","iat":1700000000,"exp":1700003600,'
                  b'"iss":"naiko","aud":"naiko-ws"}')
VECTOR_TOKEN = (
    "v1.eyJzdWIiOiJhbGljZSIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoxNzAwMDAzNjAwLCJpc3MiOiJuYWlrbyIsImF1"
    "ZCI6Im5haWtvLXdzIn0.O9h2Sf9QT4Uaf26_1NvfG-poRm4AUP2pQY2HTsGo097WV_nP2dxf6b449nOmkj0qcfgi-Yr9"
    "49JdzXVff-vuCw"
)


@pytest.fixture(scope="module")
def key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def verifier(key: Ed25519PrivateKey) -> Ed25519TokenVerifier:
    return Ed25519TokenVerifier(key.public_key(), issuer=ISSUER, audience=AUDIENCE)


def mint(key: Ed25519PrivateKey, subject: str = "alice", *, iat: int = NOW, ttl: int = 3600,
         issuer: str | None = ISSUER, audience: str | None = AUDIENCE) -> str:
    return sign_token(key, subject, issued_at=iat, expires_at=iat + ttl, issuer=issuer,
                      audience=audience)


def sign_raw(key: Ed25519PrivateKey, payload: bytes, version: str = "v1") -> str:
    """A token over arbitrary payload bytes, built straight from the documented format."""
    signing_input = f"{version}.{b64url_encode(payload)}"
    return f"{signing_input}.{b64url_encode(key.sign(signing_input.encode()))}"


def sign_claims(key: Ed25519PrivateKey, **claims: Any) -> str:
    base: dict[str, Any] = {"sub": "alice", "iat": NOW, "exp": NOW + 3600, "iss": ISSUER,
                            "aud": AUDIENCE}
    base.update(claims)
    payload = {k: v for k, v in base.items() if v is not OMIT}
    return sign_raw(key, json.dumps(payload, separators=(",", ":")).encode())


OMIT = object()


def code_of(verifier: TokenVerifier, token: Any, now: float = NOW) -> str:
    with pytest.raises(InvalidToken) as caught:
        verifier.verify(token, now)
    assert caught.value.code in ERROR_CODES
    if isinstance(token, str) and len(token) > 8:
        assert token not in str(caught.value)
    return caught.value.code


# -- format ------------------------------------------------------------------------------------

def test_round_trip(key: Ed25519PrivateKey, verifier: Ed25519TokenVerifier) -> None:
    assert verifier.verify(mint(key, "alice"), NOW) == "alice"
    assert verifier.verify(mint(key, "Bob.o_x@y-z"), NOW + 10) == "Bob.o_x@y-z"


def test_verifier_without_issuer_or_audience_ignores_them(key: Ed25519PrivateKey) -> None:
    plain = Ed25519TokenVerifier(key.public_key())
    assert plain.verify(mint(key, issuer=None, audience=None), NOW) == "alice"
    assert plain.verify(mint(key, issuer="other", audience="other"), NOW) == "alice"


def test_wire_format(key: Ed25519PrivateKey) -> None:
    token = mint(key, "alice")
    version, payload_b64, signature_b64 = token.split(".")
    assert version == "v1" and "=" not in token
    assert b64url_decode(payload_b64) == (
        b'{"sub":"alice","iat":1700000000,"exp":1700003600,"iss":"naiko","aud":"naiko-ws"}')
    signature = b64url_decode(signature_b64)
    assert len(signature) == 64
    key.public_key().verify(signature, f"v1.{payload_b64}".encode("ascii"))  # no exception
    no_claims = mint(key, issuer=None, audience=None)
    assert json.loads(b64url_decode(no_claims.split(".")[1])) == {
        "sub": "alice", "iat": NOW, "exp": NOW + 3600}


def test_documented_vector() -> None:
    private = Ed25519PrivateKey.from_private_bytes(VECTOR_SEED)
    assert auth.public_key_to_base64(private.public_key()) == VECTOR_PUBLIC_KEY
    assert mint(private, "alice", iat=1_700_000_000, ttl=3600) == VECTOR_TOKEN
    _, payload_b64, signature_b64 = VECTOR_TOKEN.split(".")
    assert b64url_decode(payload_b64) == VECTOR_PAYLOAD
    public = auth.public_key_from_base64(VECTOR_PUBLIC_KEY)
    public.verify(b64url_decode(signature_b64), f"v1.{payload_b64}".encode())
    vector_verifier = Ed25519TokenVerifier.from_base64(VECTOR_PUBLIC_KEY, issuer=ISSUER,
                                                       audience=AUDIENCE)
    assert vector_verifier.verify(VECTOR_TOKEN, 1_700_000_100) == "alice"


# -- every failure code --------------------------------------------------------------------------

@pytest.mark.parametrize("token", [None, ""])
def test_missing_token(verifier: Ed25519TokenVerifier, token: Any) -> None:
    assert code_of(verifier, token) == "missing_token"


@pytest.mark.parametrize("token", [
    "garbage", "a.b", "a.b.c.d", "...", "v1..", "v2.e30.AAAA", "V1.e30.AAAA",
    "v1.e30=.AAAA",            # padding
    "v1.e30.AA+/",             # standard base64, not base64url
    "v1.e 30.AAAA",            # whitespace
    "v1.e30." + "A" * 10,      # signature of the wrong length
    "v1.\u00e9.AAAA",          # not ASCII
    "v1." + "A" * 5000 + ".AAAA",  # too long
    "v1.eyJzdWIiOiJhIn0." + "A" * 85 + "B",  # 64-byte signature, non-canonical spelling
    12345,
])
def test_malformed(verifier: Ed25519TokenVerifier, token: Any) -> None:
    assert code_of(verifier, token) == "malformed_token"


def test_forged_with_another_key(verifier: Ed25519TokenVerifier) -> None:
    other = Ed25519PrivateKey.generate()
    assert code_of(verifier, mint(other)) == "bad_signature"


def test_tampered_payload(key: Ed25519PrivateKey, verifier: Ed25519TokenVerifier) -> None:
    version, payload_b64, signature_b64 = mint(key, "alice").split(".")
    claims = json.loads(b64url_decode(payload_b64))
    claims["sub"] = "mallory"
    forged = b64url_encode(json.dumps(claims, separators=(",", ":")).encode())
    assert code_of(verifier, f"{version}.{forged}.{signature_b64}") == "bad_signature"
    later = dict(claims, sub="alice", exp=claims["exp"] + 10**6)
    longer = b64url_encode(json.dumps(later, separators=(",", ":")).encode())
    assert code_of(verifier, f"{version}.{longer}.{signature_b64}") == "bad_signature"


def test_tampered_signature(key: Ed25519PrivateKey, verifier: Ed25519TokenVerifier) -> None:
    version, payload_b64, signature_b64 = mint(key).split(".")
    signature = bytearray(b64url_decode(signature_b64))
    signature[10] ^= 1
    assert code_of(verifier, f"{version}.{payload_b64}.{b64url_encode(bytes(signature))}") \
        == "bad_signature"


def test_signed_but_not_a_claims_object(key: Ed25519PrivateKey,
                                        verifier: Ed25519TokenVerifier) -> None:
    assert code_of(verifier, sign_raw(key, b"not json")) == "malformed_token"
    assert code_of(verifier, sign_raw(key, b"\xff\xfe")) == "malformed_token"
    assert code_of(verifier, sign_raw(key, b'["alice"]')) == "malformed_token"
    assert code_of(verifier, sign_raw(key, b"[" * 2000)) == "malformed_token"  # too deep
    for claims in ({"exp": OMIT}, {"iat": OMIT}, {"exp": "9999999999"}, {"exp": 1.7e9 + 3600},
                   {"iat": True}, {"exp": None}, {"nbf": "0"}):
        assert code_of(verifier, sign_claims(key, **claims)) == "malformed_token", claims


def test_expired(key: Ed25519PrivateKey, verifier: Ed25519TokenVerifier) -> None:
    token = mint(key, iat=NOW, ttl=60)
    exp = NOW + 60
    assert verifier.verify(token, exp) == "alice"                  # within the leeway
    assert verifier.verify(token, exp + LEEWAY - 0.5) == "alice"
    assert code_of(verifier, token, exp + LEEWAY) == "expired_token"
    assert code_of(verifier, token, exp + 86_400) == "expired_token"


def test_issued_in_the_future(key: Ed25519PrivateKey, verifier: Ed25519TokenVerifier) -> None:
    assert verifier.verify(mint(key, iat=NOW + LEEWAY), NOW) == "alice"   # clock skew
    assert code_of(verifier, mint(key, iat=NOW + LEEWAY + 1)) == "not_yet_valid"
    assert code_of(verifier, sign_claims(key, nbf=NOW + 3000)) == "not_yet_valid"
    assert verifier.verify(sign_claims(key, nbf=NOW), NOW) == "alice"


def test_wrong_issuer(key: Ed25519PrivateKey, verifier: Ed25519TokenVerifier) -> None:
    assert code_of(verifier, mint(key, issuer="someone-else")) == "wrong_issuer"
    assert code_of(verifier, mint(key, issuer=None)) == "wrong_issuer"


def test_wrong_audience(key: Ed25519PrivateKey, verifier: Ed25519TokenVerifier) -> None:
    assert code_of(verifier, mint(key, audience="naiko-admin")) == "wrong_audience"
    assert code_of(verifier, mint(key, audience=None)) == "wrong_audience"
    assert code_of(verifier, sign_claims(key, aud=["other"])) == "wrong_audience"
    assert code_of(verifier, sign_claims(key, aud=[])) == "wrong_audience"
    assert code_of(verifier, sign_claims(key, aud={AUDIENCE: 1})) == "wrong_audience"


def test_an_aud_list_holding_the_audience_is_accepted(key: Ed25519PrivateKey,
                                                      verifier: Ed25519TokenVerifier) -> None:
    """RFC 7519 §4.1.3: ``aud`` is a string or a list of strings (docs/auth.md)."""
    assert verifier.verify(sign_claims(key, aud=[AUDIENCE]), NOW) == "alice"
    assert verifier.verify(sign_claims(key, aud=["other", AUDIENCE]), NOW) == "alice"


@pytest.mark.parametrize("subject", ["bot-1", "bot-42", "BOT-1", "Bot-x", "bot-"])
def test_r8_4_a_bot_subject_is_reserved(key: Ed25519PrivateKey, verifier: Ed25519TokenVerifier,
                                        subject: str) -> None:
    """R8.4: BOT seats are the server's; no token speaks for one (nor can one be minted)."""
    assert code_of(verifier, sign_claims(key, sub=subject)) == "reserved_subject"
    with pytest.raises(ValueError, match="BOT"):
        sign_token(key, subject, issued_at=NOW, expires_at=NOW + 60)


@pytest.mark.parametrize("subject", [
    "", "x" * 65, "alice bob", "alice\n", "\u00e1lice", "al/ice", "alice:1", 42, None, ["a"],
    OMIT,
])
def test_bad_subject(key: Ed25519PrivateKey, verifier: Ed25519TokenVerifier,
                     subject: Any) -> None:
    assert code_of(verifier, sign_claims(key, sub=subject)) == "bad_subject"


@pytest.mark.parametrize("subject", ["a", "x" * 64, "alice.smith@example.com", "A-9_z",
                                     "robot-1", "bot1", "bot_1", "abot-1"])
def test_good_subjects(key: Ed25519PrivateKey, verifier: Ed25519TokenVerifier,
                       subject: str) -> None:
    assert verifier.verify(sign_claims(key, sub=subject), NOW) == subject


def test_checks_run_in_the_documented_order(key: Ed25519PrivateKey,
                                            verifier: Ed25519TokenVerifier) -> None:
    # An expired token from the wrong issuer for a bad subject reports the expiry first...
    everything_wrong = sign_claims(key, sub="a b", iss="x", aud="y", exp=NOW - 3600,
                                   iat=NOW - 7200)
    assert code_of(verifier, everything_wrong) == "expired_token"
    # ...but only once its signature holds.
    other = Ed25519PrivateKey.generate()
    assert code_of(verifier, sign_claims(other, exp=NOW - 3600, iat=NOW - 7200)) \
        == "bad_signature"


def test_invalid_token_exception() -> None:
    error = InvalidToken("bad_subject", "no")
    assert (error.code, error.message, str(error)) == ("bad_subject", "no", "bad_subject: no")
    assert ERROR_CODES == {"missing_token", "malformed_token", "bad_signature", "expired_token",
                           "not_yet_valid", "wrong_issuer", "wrong_audience", "bad_subject",
                           "lifetime_too_long", "reserved_subject"}


def test_docs_auth_lists_every_code_the_verifiers_raise() -> None:
    """Issue 21 item 13, for the authorizer: every ``InvalidToken`` code the verifiers raise
    (an AST scan of auth.py: literal or named first arguments) is in :data:`ERROR_CODES` and
    in docs/auth.md's verification table, and both list no other. (These codes are logged and
    counted; the client only ever sees the 401.)"""
    source = ROOT / "layers" / "engine" / "naiko_service" / "auth.py"
    tree = ast.parse(source.read_text("utf-8"))
    raised = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "InvalidToken":
            argument = node.args[0]
            assert isinstance(argument, ast.Name), ast.unparse(argument)
            raised.add(getattr(auth, argument.id))
    table = (ROOT / "docs" / "auth.md").read_text("utf-8").split("## Verification", 1)[1]
    rows = [line for line in table.split("\n## ", 1)[0].splitlines() if line.startswith("| ")]
    documented = {code for row in rows  # the last column: the check's code
                  for code in re.findall(r"`([a-z_]+)`", row.rstrip(" |").split("|")[-1])}
    assert raised == set(ERROR_CODES)
    assert documented == set(ERROR_CODES), (sorted(documented ^ set(ERROR_CODES)))


# -- tokens bound to the stage (issue 15 item 9) ---------------------------------------------

def stage_verifier(key: Ed25519PrivateKey, stage: str) -> Ed25519TokenVerifier:
    """What the deployed authorizer of *stage* builds (template.yaml: iss = aud =
    naiko-${Stage})."""
    claim = auth.stage_claim(stage)
    return Ed25519TokenVerifier(key.public_key(), issuer=claim, audience=claim)


def test_a_token_for_another_stage_is_refused(key: Ed25519PrivateKey,
                                             mint_script: ModuleType) -> None:
    pem = auth.private_key_to_pem(key)
    dev, prod = stage_verifier(key, "dev"), stage_verifier(key, "prod")
    for_prod = mint_script.mint(pem, "alice", stage="prod", now=NOW)
    assert prod.verify(for_prod, NOW) == "alice"
    assert code_of(dev, for_prod) == "wrong_issuer"  # the stable code of another stage's token
    # Same key, same player, every other claim valid: only the stage differs.
    assert code_of(dev, mint(key, issuer="naiko-dev", audience="naiko-prod")) == "wrong_audience"
    assert code_of(dev, mint(key, issuer=None, audience=None)) == "wrong_issuer"
    assert dev.verify(mint_script.mint(pem, "alice", stage="dev", now=NOW), NOW) == "alice"


def test_mint_script_mints_for_its_stage(mint_script: ModuleType, key: Ed25519PrivateKey,
                                         capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(mint_script.PRIVATE_KEY_ENV, auth.private_key_to_pem(key).decode())
    monkeypatch.delenv(mint_script.STAGE_ENV, raising=False)

    def claims(*args: str) -> dict[str, Any]:
        assert mint_script.main(["--player", "alice", *args]) == 0
        token = capsys.readouterr().out.strip()
        payload: dict[str, Any] = json.loads(b64url_decode(token.split(".")[1]))
        return payload

    assert (claims()["iss"], claims()["aud"]) == ("naiko-dev", "naiko-dev")  # the default
    assert (claims("--stage", "prod")["iss"], claims("--stage", "prod")["aud"]) == (
        "naiko-prod", "naiko-prod")
    monkeypatch.setenv(mint_script.STAGE_ENV, "beta")
    assert claims()["aud"] == "naiko-beta"
    assert claims("--audience", "x")["aud"] == "x" and claims("--audience", "x")["iss"] == \
        "naiko-beta"
    assert "iss" not in claims("--stage", "") and "aud" not in claims("--stage", "")


# -- rotating and revoking the key pair (issue 15 item 10, docs/auth.md) ----------------------

MAX_LIFETIME = 3600


def test_a_token_may_not_outlive_the_maximum_lifetime(key: Ed25519PrivateKey) -> None:
    bounded = Ed25519TokenVerifier(key.public_key(), max_lifetime=MAX_LIFETIME)
    assert bounded.verify(mint(key, ttl=MAX_LIFETIME), NOW) == "alice"
    assert code_of(bounded, mint(key, ttl=MAX_LIFETIME + 1)) == "lifetime_too_long"


def test_revoking_the_old_auth_key_after_the_overlap(key: Ed25519PrivateKey) -> None:
    """The documented rotation: deploy the new key with the old one as AuthPreviousPublicKey;
    switch the minter; after AuthMaxTokenSeconds + leeway, empty AuthPreviousPublicKey."""
    old, new = key, Ed25519PrivateKey.generate()
    before = Ed25519TokenVerifier(old.public_key(), max_lifetime=MAX_LIFETIME)
    overlap = Ed25519TokenVerifier(new.public_key(), previous_keys=[old.public_key()],
                                   max_lifetime=MAX_LIFETIME)
    after = Ed25519TokenVerifier(new.public_key(), max_lifetime=MAX_LIFETIME)
    switch = NOW  # the minter signs with the new key from here on
    last_old = mint(old, "alice", iat=switch, ttl=MAX_LIFETIME)  # the longest-lived old token
    first_new = mint(new, "bob", iat=switch, ttl=MAX_LIFETIME)
    assert code_of(before, first_new) == "bad_signature"       # deploy the key first...
    assert overlap.verify(last_old, switch) == "alice"         # ...then both are accepted
    assert overlap.verify(first_new, switch) == "bob"
    assert overlap.verify(last_old, switch + MAX_LIFETIME + LEEWAY - 1) == "alice"
    end = switch + MAX_LIFETIME + LEEWAY                        # the overlap ends
    assert code_of(overlap, last_old, end) == "expired_token"   # nothing old is still valid
    # After the overlap the old key is revoked: even a freshly minted old-key token is refused.
    assert code_of(after, mint(old, "alice", iat=end, ttl=60), end) == "bad_signature"
    assert code_of(after, last_old, switch) == "bad_signature"
    assert after.verify(mint(new, "bob", iat=end, ttl=60), end) == "bob"
    # from_base64 (what the authorizer builds) takes the previous keys too.
    assert Ed25519TokenVerifier.from_base64(
        auth.public_key_to_base64(new.public_key()),
        previous_keys_b64=[auth.public_key_to_base64(old.public_key())]).verify(
        last_old, switch) == "alice"


# -- helpers -------------------------------------------------------------------------------------

def test_b64url_is_strict() -> None:
    for data in (b"", b"A", b"AB", b"ABC", bytes(range(256))):
        assert b64url_decode(b64url_encode(data)) == data
    for bad in ("QR", "Q", "QQ==", "Q Q", "QQ\n", "+/", "a*"):
        with pytest.raises(ValueError):
            b64url_decode(bad)


def test_key_helpers(key: Ed25519PrivateKey) -> None:
    b64 = auth.public_key_to_base64(key.public_key())
    assert len(base64.b64decode(b64)) == 32
    assert auth.public_key_from_base64(f"  {b64}\n") == key.public_key()
    with pytest.raises(ValueError):
        auth.public_key_from_base64("not base64!")
    with pytest.raises(ValueError):
        auth.public_key_from_base64(base64.b64encode(bytes(31)).decode())
    with pytest.raises(ValueError):
        Ed25519TokenVerifier(bytes(33))
    assert Ed25519TokenVerifier(base64.b64decode(b64)).verify(mint(key), NOW) == "alice"
    pem = auth.private_key_to_pem(key)
    assert pem.startswith(b"-----BEGIN PRIVATE KEY-----")
    again = auth.private_key_from_pem(pem.decode())
    assert again.public_key() == key.public_key()
    with pytest.raises(ValueError):
        auth.private_key_from_pem(b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")
    rsa_pem = rsa.generate_private_key(65537, 2048).private_bytes(
        *_pkcs8_pem_args())
    with pytest.raises(ValueError, match="Ed25519"):
        auth.private_key_from_pem(rsa_pem)


def _pkcs8_pem_args() -> tuple[Any, Any, Any]:
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
    )
    return Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()


def test_sign_token_refuses_what_verify_would_refuse(key: Ed25519PrivateKey) -> None:
    with pytest.raises(ValueError):
        sign_token(key, "bad id", issued_at=NOW, expires_at=NOW + 1)
    with pytest.raises(ValueError):
        sign_token(key, "alice", issued_at=NOW, expires_at=NOW)


# -- OpenID Connect: RS256 JWTs against a JWKS -----------------------------------------------------

@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(65537, 2048)


def _int_b64(value: int) -> str:
    return b64url_encode(value.to_bytes((value.bit_length() + 7) // 8, "big"))


def jwk_of(private: rsa.RSAPrivateKey, kid: str, **extra: str) -> dict[str, str]:
    numbers = private.public_key().public_numbers()
    return {"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": _int_b64(numbers.n),
            "e": _int_b64(numbers.e), **extra}


def jwt(private: rsa.RSAPrivateKey, claims: dict[str, Any], *, kid: str = "k1",
        alg: str = "RS256") -> str:
    header = b64url_encode(json.dumps({"alg": alg, "kid": kid, "typ": "JWT"}).encode())
    payload = b64url_encode(json.dumps(claims).encode())
    signature = private.sign(f"{header}.{payload}".encode(), padding.PKCS1v15(), SHA256())
    return f"{header}.{payload}.{b64url_encode(signature)}"


COGNITO_ISSUER = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Example"
SUB = "7c9e6679-7425-40de-944b-e07fc1f90ae7"


def id_claims(**changes: Any) -> dict[str, Any]:
    claims = {"sub": SUB, "iss": COGNITO_ISSUER, "aud": "app-client", "token_use": "id",
              "iat": NOW, "exp": NOW + 3600, "auth_time": NOW}
    claims.update(changes)
    return claims


class Jwks:
    """A JWKS fetcher that counts its calls; ``fail`` makes it raise."""

    def __init__(self, *jwks: dict[str, str]) -> None:
        self.keys = list(jwks)
        self.calls = 0
        self.fail = False

    def __call__(self) -> dict[str, Any]:
        self.calls += 1
        if self.fail:
            raise OSError("JWKS unreachable")
        return {"keys": self.keys}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def oidc(jwks: Jwks, clock: Clock | None = None, **options: Any) -> JwksTokenVerifier:
    settings: dict[str, Any] = {"issuer": COGNITO_ISSUER, "audience": "app-client",
                                "token_use": "id"}
    settings.update(options)
    return JwksTokenVerifier(jwks, monotonic=clock or Clock(), **settings)


def test_oidc_round_trip(rsa_key: rsa.RSAPrivateKey) -> None:
    jwks = Jwks({"kty": "EC", "kid": "ec"}, {"kty": "RSA", "kid": "broken", "n": "!"},
                jwk_of(rsa_key, "k1"))
    verifier: TokenVerifier = oidc(jwks)
    assert verifier.verify(jwt(rsa_key, id_claims()), NOW) == SUB
    assert verifier.verify(jwt(rsa_key, id_claims(aud=["x", "app-client"])), NOW) == SUB
    assert jwks.calls == 1  # keys are cached


def test_oidc_cognito_access_token(rsa_key: rsa.RSAPrivateKey) -> None:
    verifier = oidc(Jwks(jwk_of(rsa_key, "k1")), audience_claim="client_id", token_use="access")
    access = id_claims(token_use="access", client_id="app-client")
    del access["aud"]
    assert verifier.verify(jwt(rsa_key, access), NOW) == SUB
    assert code_of(verifier, jwt(rsa_key, id_claims())) == "wrong_audience"


def test_oidc_failures(rsa_key: rsa.RSAPrivateKey) -> None:
    verifier = oidc(Jwks(jwk_of(rsa_key, "k1")))
    other = rsa.generate_private_key(65537, 2048)
    good = jwt(rsa_key, id_claims())
    header, payload, signature = good.split(".")
    tampered = b64url_encode(json.dumps(id_claims(sub="mallory")).encode())
    none_header = b64url_encode(b'{"alg":"none","kid":"k1"}')
    cases = {
        "": "missing_token",
        "a.b": "malformed_token",
        f"{none_header}.{payload}.": "malformed_token",
        jwt(rsa_key, id_claims(), alg="HS256"): "malformed_token",
        f"{b64url_encode(b'{}')}.{payload}.{signature}": "malformed_token",   # no kid
        jwt(other, id_claims()): "bad_signature",
        f"{header}.{tampered}.{signature}": "bad_signature",
        jwt(rsa_key, id_claims(), kid="unknown"): "bad_signature",
        jwt(rsa_key, id_claims(exp=NOW - LEEWAY)): "expired_token",
        jwt(rsa_key, id_claims(nbf=NOW + 600)): "not_yet_valid",
        jwt(rsa_key, id_claims(iss="https://evil.example")): "wrong_issuer",
        jwt(rsa_key, id_claims(aud="another-client")): "wrong_audience",
        jwt(rsa_key, id_claims(token_use="access")): "wrong_audience",
        jwt(rsa_key, id_claims(sub="not a player id")): "bad_subject",
    }
    for token, expected in cases.items():
        assert code_of(verifier, token) == expected, token


def test_oidc_key_rotation_is_rate_limited(rsa_key: rsa.RSAPrivateKey) -> None:
    jwks, clock = Jwks(jwk_of(rsa_key, "k1")), Clock()
    verifier = oidc(jwks, clock, refresh_interval=300)
    new_key = rsa.generate_private_key(65537, 2048)
    rotated = jwt(new_key, id_claims(), kid="k2")
    assert code_of(verifier, rotated) == "bad_signature"
    assert code_of(verifier, rotated) == "bad_signature"
    assert jwks.calls == 1                       # unknown kids do not hammer the provider
    jwks.keys.append(jwk_of(new_key, "k2"))
    clock.now = 301
    assert verifier.verify(rotated, NOW) == SUB  # refetched after the interval
    assert jwks.calls == 2


def test_oidc_unreachable_jwks_retries_on_cold_start(rsa_key: rsa.RSAPrivateKey) -> None:
    jwks = Jwks(jwk_of(rsa_key, "k1"))
    jwks.fail = True
    verifier = oidc(jwks)
    with pytest.raises(OSError):
        verifier.verify(jwt(rsa_key, id_claims()), NOW)
    jwks.fail = False
    assert verifier.verify(jwt(rsa_key, id_claims()), NOW) == SUB


def test_oidc_refuses_short_rsa_keys() -> None:
    weak = rsa.generate_private_key(65537, 1024)
    verifier = oidc(Jwks(jwk_of(weak, "k1")))
    assert code_of(verifier, jwt(weak, id_claims())) == "bad_signature"


def test_fetch_jwks_url(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import urllib.request

    with pytest.raises(ValueError):
        auth.fetch_jwks_url("http://insecure.example/jwks.json")
    seen: list[tuple[str, float]] = []

    def fake_urlopen(url: str, timeout: float) -> io.BytesIO:
        seen.append((url, timeout))
        return io.BytesIO(b'{"keys": []}')

    monkeypatch.setattr(urllib.request, "urlopen", fake_urlopen)
    fetch = auth.fetch_jwks_url(COGNITO_ISSUER + "/.well-known/jwks.json")
    assert fetch() == {"keys": []}
    assert seen == [(COGNITO_ISSUER + "/.well-known/jwks.json", 3.0)]


# -- scripts/mint_token.py -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def mint_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("naiko_mint_token_script", MINT_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mint_functions(mint_script: ModuleType) -> None:
    pem, public = mint_script.generate_keypair()
    assert pem.startswith(b"-----BEGIN PRIVATE KEY-----")
    assert mint_script.public_key_of(pem) == public
    token = mint_script.mint(pem, "alice", ttl=120, issuer=ISSUER, audience=AUDIENCE, now=NOW)
    checker = Ed25519TokenVerifier.from_base64(public, issuer=ISSUER, audience=AUDIENCE)
    assert checker.verify(token, NOW + 100) == "alice"
    assert code_of(checker, token, NOW + 120 + LEEWAY) == "expired_token"
    fresh = mint_script.mint(pem.decode(), "bob", issuer=ISSUER, audience=AUDIENCE)
    assert checker.verify(fresh, time.time()) == "bob"
    for ttl in (0, -5, mint_script.MAX_TTL + 1):
        with pytest.raises(ValueError):
            mint_script.mint(pem, "alice", ttl=ttl)
    with pytest.raises(ValueError):
        mint_script.mint(pem, "not valid!")


def test_mint_main_writes_a_private_key_file(mint_script: ModuleType, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "auth.pem"
    assert mint_script.main(["--new-key", str(path)]) == 0
    public = capsys.readouterr().out.strip()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert mint_script.public_key_of(path.read_bytes()) == public
    assert mint_script.main(["--new-key", str(path)]) == 1            # never overwrites...
    assert mint_script.public_key_of(path.read_bytes()) == public
    assert mint_script.main(["--new-key", str(path), "--force"]) == 0  # ...unless forced
    public = capsys.readouterr().out.strip().splitlines()[-1]
    monkeypatch.setenv(mint_script.PRIVATE_KEY_ENV, path.read_text())
    assert mint_script.main(["--player", "carol", "--ttl", "60"]) == 0
    token = capsys.readouterr().out.strip()
    assert Ed25519TokenVerifier.from_base64(public).verify(token, time.time()) == "carol"
    assert mint_script.main(["--public-key"]) == 0
    assert capsys.readouterr().out.strip() == public
    monkeypatch.delenv(mint_script.PRIVATE_KEY_ENV)
    with pytest.raises(SystemExit):
        mint_script.main(["--player", "carol"])


def test_mint_script_subprocess(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NAIKO_AUTH_PRIVATE_KEY"}
    key_path = tmp_path / "dev-auth.pem"

    def run(*args: str) -> str:
        done = subprocess.run([sys.executable, str(MINT_SCRIPT), *args], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=60, check=True)
        return done.stdout.strip()

    public = run("--new-key", str(key_path))
    token = run("--key", str(key_path), "--player", "alice", "--ttl", "3600",
                "--issuer", ISSUER, "--audience", AUDIENCE)
    checker = Ed25519TokenVerifier.from_base64(public, issuer=ISSUER, audience=AUDIENCE)
    assert checker.verify(token, time.time()) == "alice"
    failed = subprocess.run([sys.executable, str(MINT_SCRIPT), "--key", str(key_path),
                             "--player", "bad id"], capture_output=True, text=True, env=env,
                            timeout=60)
    assert failed.returncode == 1 and "player id" in failed.stderr
