""":mod:`naiko_service.auth` mints and verifies the tokens that identify a player.

A client opens the WebSocket with ``wss://…?token=<TOKEN>``; the ``$connect`` Lambda authorizer
(``functions/authorizer/app.py``) verifies the token with a :class:`TokenVerifier` and hands the
player id to API Gateway. The player's identity comes only from a verified token, never from a
message.

Token format (``docs/auth.md`` is the reference)::

    v1.<base64url(payload)>.<base64url(signature)>        (base64url without "=" padding)

``payload`` is compact JSON ``{"sub": ..., "iat": ..., "exp": ..., "iss": ..., "aud": ...}``
(``iss``/``aud`` only when the minter sets them) and ``signature`` is Ed25519 over the ASCII
bytes ``v1.<base64url(payload)>``.

Two verifiers implement :class:`TokenVerifier`: :class:`Ed25519TokenVerifier` (the tokens above)
and :class:`JwksTokenVerifier` (RS256 JWTs of an OpenID Connect provider such as Cognito).
``cryptography`` is imported lazily, when a key is loaded, to keep cold starts cheap.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

TOKEN_VERSION = "v1"
DEFAULT_LEEWAY_SECONDS = 30
"""Clock skew tolerated on ``exp`` and ``iat`` (and ``nbf`` for JWTs)."""
MAX_TOKEN_CHARS = 4096
"""Longer tokens are rejected before any decoding."""
MAX_SUBJECT_CHARS = 64
SUBJECT_PATTERN = re.compile(r"[A-Za-z0-9_.@-]{1,64}")
"""A player id: 1 to 64 of ``A-Z a-z 0-9 _ . @ -`` (matched in full)."""

BOT_ID_PREFIX = "bot-"
"""The reserved namespace of the server's BOT seats (R8.4): every BOT the service seats, at a
cash or private table or in a tournament, is ``bot-<n>`` (:func:`bot_id`), and no token may
carry a subject that begins with it, in any letter case (``reserved_subject``): a BOT's seat is
the server's alone, never a client's. (The house's accounts, ``house:…``, are out of every
token's reach already: ``:`` is not a subject character.)"""

_B64URL = re.compile(r"[A-Za-z0-9_-]*")

# Stable failure codes (InvalidToken.code).
MISSING_TOKEN = "missing_token"
MALFORMED_TOKEN = "malformed_token"
BAD_SIGNATURE = "bad_signature"
EXPIRED_TOKEN = "expired_token"
NOT_YET_VALID = "not_yet_valid"
WRONG_ISSUER = "wrong_issuer"
WRONG_AUDIENCE = "wrong_audience"
BAD_SUBJECT = "bad_subject"
LIFETIME_TOO_LONG = "lifetime_too_long"
RESERVED_SUBJECT = "reserved_subject"
ERROR_CODES = frozenset({
    MISSING_TOKEN, MALFORMED_TOKEN, BAD_SIGNATURE, EXPIRED_TOKEN, NOT_YET_VALID,
    WRONG_ISSUER, WRONG_AUDIENCE, BAD_SUBJECT, LIFETIME_TOO_LONG, RESERVED_SUBJECT,
})


def is_bot_id(player_id: str) -> bool:
    """Whether *player_id* is in the BOT namespace (:data:`BOT_ID_PREFIX`, any letter case).

    >>> is_bot_id("bot-1"), is_bot_id("BOT-7"), is_bot_id("robot-1"), is_bot_id("bot1")
    (True, True, False, False)
    """
    return player_id[:len(BOT_ID_PREFIX)].lower() == BOT_ID_PREFIX


def bot_id(number: int) -> str:
    """The id of the server's BOT number *number*.

    >>> bot_id(3)
    'bot-3'
    """
    return f"{BOT_ID_PREFIX}{number}"


def stage_claim(stage: str) -> str:
    """The ``iss`` and ``aud`` of a stage's tokens: ``naiko-<stage>`` (``template.yaml`` sets
    the authorizer's ``AUTH_ISSUER`` and ``AUDIENCE`` to it), so a token minted for one stage
    is refused by every other (``wrong_issuer``).

    >>> stage_claim("prod")
    'naiko-prod'
    """
    return f"naiko-{stage}"


class InvalidToken(Exception):
    """The token is not acceptable. ``code`` is one of :data:`ERROR_CODES` (stable, safe to log
    and to count); ``message`` is for humans and never contains the token."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class TokenVerifier(Protocol):
    """Verifies a bearer token and returns the player id it was issued to.

    :param now: The current time in seconds since the epoch (``time.time()``).
    :raises InvalidToken: For every reason the token is not acceptable. Any other exception
        means the verifier itself could not work (e.g. the provider's JWKS was unreachable);
        callers deny in that case too.
    """

    def verify(self, token: str, now: float) -> str: ...


# -- encoding helpers -------------------------------------------------------------------------

def b64url_encode(data: bytes) -> str:
    """base64url without padding (RFC 4648 §5, RFC 7515 §2)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    """Strict inverse of :func:`b64url_encode`: only the base64url alphabet, no padding, and
    only the canonical encoding (so one value has exactly one spelling).

    :raises ValueError: If *text* is not such an encoding.
    """
    if not _B64URL.fullmatch(text) or len(text) % 4 == 1:
        raise ValueError("not unpadded base64url")
    try:
        data = base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except binascii.Error as error:
        raise ValueError("not unpadded base64url") from error
    if b64url_encode(data) != text:
        raise ValueError("not the canonical base64url encoding")
    return data


def _compact_json(obj: Mapping[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True).encode("ascii")


# -- claims checks shared by both verifiers ---------------------------------------------------

def _int_claim(claims: Mapping[str, Any], name: str) -> int:
    value = claims.get(name)
    if type(value) is not int:  # bool is an int subclass: excluded on purpose
        raise InvalidToken(MALFORMED_TOKEN, f"claim {name!r} must be an integer")
    return value


def check_subject(subject: object) -> str:
    """:returns: *subject* if it is a valid player id that is not a BOT's.

    :raises InvalidToken: ``bad_subject``; ``reserved_subject`` for an id in the BOT namespace
        (:data:`BOT_ID_PREFIX`): a BOT's seat is the server's alone (R8.4).
    """
    if not isinstance(subject, str) or not SUBJECT_PATTERN.fullmatch(subject):
        raise InvalidToken(BAD_SUBJECT, "the subject is not a valid player id "
                           f"(1-{MAX_SUBJECT_CHARS} of A-Z a-z 0-9 _ . @ -)")
    if is_bot_id(subject):
        raise InvalidToken(RESERVED_SUBJECT, f"player ids beginning {BOT_ID_PREFIX!r} are the "
                           "server's BOT seats (R8.4)")
    return subject


def check_times(claims: Mapping[str, Any], now: float, leeway: float,
                max_lifetime: float | None = None) -> None:
    """``exp`` (required) must be after ``now - leeway``; ``iat`` (required) and ``nbf``
    (optional) must not be after ``now + leeway``; with *max_lifetime*, ``exp - iat`` must not
    exceed it (``lifetime_too_long``: what bounds a key rotation's overlap, docs/auth.md)."""
    exp = _int_claim(claims, "exp")
    iat = _int_claim(claims, "iat")
    nbf = _int_claim(claims, "nbf") if "nbf" in claims else None
    if max_lifetime is not None and exp - iat > max_lifetime:
        raise InvalidToken(LIFETIME_TOO_LONG, "the token lives longer than allowed")
    if now >= exp + leeway:
        raise InvalidToken(EXPIRED_TOKEN, "the token has expired")
    if iat > now + leeway:
        raise InvalidToken(NOT_YET_VALID, "the token was issued in the future")
    if nbf is not None and nbf > now + leeway:
        raise InvalidToken(NOT_YET_VALID, "the token is not valid yet")


def _check_issuer(claims: Mapping[str, Any], issuer: str | None) -> None:
    if issuer is not None and claims.get("iss") != issuer:
        raise InvalidToken(WRONG_ISSUER, "the token was issued by another issuer")


def _check_audience(claims: Mapping[str, Any], audience: str | None, claim: str = "aud") -> None:
    if audience is None:
        return
    value = claims.get(claim)
    # "aud" may be a string or a list of strings that must hold the audience (RFC 7519
    # §4.1.3); Naiko's minter writes a string.
    if not (value == audience or (isinstance(value, list) and audience in value)):
        raise InvalidToken(WRONG_AUDIENCE, "the token is meant for another audience")


def _check_token_text(token: object) -> str:
    if token is None or token == "":
        raise InvalidToken(MISSING_TOKEN, "no token was given")
    if not isinstance(token, str):
        raise InvalidToken(MALFORMED_TOKEN, "the token is not a string")
    if len(token) > MAX_TOKEN_CHARS or not token.isascii():
        raise InvalidToken(MALFORMED_TOKEN, "the token is too long or not ASCII")
    return token


NAIKO_SIGNATURE_CHARS = 86
"""An Ed25519 signature's 64 bytes in unpadded base64url."""


def check_token_shape(token: object, provider: str = "naiko") -> str:
    """*token* if its shape could pass *provider*'s verifier (``naiko``: a v1 token; ``oidc``: a
    JWT), refused otherwise with no key, no ``cryptography`` import and no call out: missing
    (``missing_token``), not a string, longer than :data:`MAX_TOKEN_CHARS`, not ASCII, not three
    dot-separated parts, another version, a part that is not canonical base64url or a
    signature of the wrong size (``malformed_token``). The authorizer runs it first, so that a
    flood of junk handshakes costs string checks only (issue 23 item 4); it refuses nothing
    that :meth:`Ed25519TokenVerifier.verify` would accept (that method starts with it).

    :raises InvalidToken: With the code above.
    """
    text = _check_token_text(token)
    parts = text.split(".")
    if len(parts) != 3:
        raise InvalidToken(MALFORMED_TOKEN, "a token has three dot-separated parts")
    first, payload_b64, signature_b64 = parts
    if provider == "naiko" and first != TOKEN_VERSION:
        raise InvalidToken(MALFORMED_TOKEN, "unsupported token version")
    if provider == "naiko" and len(signature_b64) != NAIKO_SIGNATURE_CHARS:
        raise InvalidToken(MALFORMED_TOKEN, "an Ed25519 signature is 64 bytes")
    try:
        b64url_decode(signature_b64)
        b64url_decode(payload_b64)
        if provider != "naiko":
            b64url_decode(first)  # a JWT's header
    except ValueError as error:
        raise InvalidToken(MALFORMED_TOKEN, "a token part is not base64url") from error
    return text


def _decode_json_object(segment: str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(b64url_decode(segment))
    except (ValueError, RecursionError) as error:  # JSONDecodeError/UnicodeDecodeError too
        raise InvalidToken(MALFORMED_TOKEN, f"the {what} is not base64url JSON") from error
    if not isinstance(value, dict):
        raise InvalidToken(MALFORMED_TOKEN, f"the {what} is not a JSON object")
    return value


# -- Naiko v1 tokens: Ed25519 ------------------------------------------------------------------

def load_public_key(raw: bytes) -> Ed25519PublicKey:
    """The Ed25519 public key from its raw 32 bytes. :raises ValueError:"""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    if len(raw) != 32:
        raise ValueError("an Ed25519 public key is 32 raw bytes")
    return Ed25519PublicKey.from_public_bytes(raw)


def public_key_from_base64(text: str) -> Ed25519PublicKey:
    """The Ed25519 public key from standard base64 (padded) of its raw 32 bytes, as in the
    ``AUTH_PUBLIC_KEY`` variable. :raises ValueError:"""
    try:
        raw = base64.b64decode(text.strip(), validate=True)
    except binascii.Error as error:
        raise ValueError("the public key is not valid base64") from error
    return load_public_key(raw)


def public_key_to_base64(key: Ed25519PublicKey) -> str:
    """Standard base64 of the raw 32-byte public key (the ``AUTH_PUBLIC_KEY`` format)."""
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return base64.b64encode(key.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode("ascii")


def generate_private_key() -> Ed25519PrivateKey:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.generate()


def private_key_from_pem(pem: bytes | str) -> Ed25519PrivateKey:
    """An unencrypted PKCS#8 PEM Ed25519 private key. :raises ValueError:"""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    data = pem.encode("ascii") if isinstance(pem, str) else pem
    try:
        key = load_pem_private_key(data, password=None)
    except (TypeError, ValueError) as error:
        raise ValueError(f"not an unencrypted PEM private key: {error}") from error
    if not isinstance(key, Ed25519PrivateKey):
        raise ValueError("the PEM key is not an Ed25519 private key")
    return key


def private_key_to_pem(key: Ed25519PrivateKey) -> bytes:
    """Unencrypted PKCS#8 PEM (keep the file private)."""
    from cryptography.hazmat.primitives.serialization import (
        Encoding,
        NoEncryption,
        PrivateFormat,
    )

    return key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())


def sign_token(private_key: Ed25519PrivateKey, subject: str, *, issued_at: int, expires_at: int,
               issuer: str | None = None, audience: str | None = None) -> str:
    """A v1 token for *subject*. Claims appear in the order ``sub, iat, exp, iss, aud``;
    ``iss``/``aud`` only when given.

    :raises ValueError: If *subject* is not a valid player id (a BOT's neither) or
        ``expires_at <= issued_at``.
    """
    try:
        check_subject(subject)
    except InvalidToken as error:
        raise ValueError(error.message) from None
    if expires_at <= issued_at:
        raise ValueError("the token must expire after it is issued")
    claims: dict[str, Any] = {"sub": subject, "iat": int(issued_at), "exp": int(expires_at)}
    if issuer is not None:
        claims["iss"] = issuer
    if audience is not None:
        claims["aud"] = audience
    signing_input = f"{TOKEN_VERSION}.{b64url_encode(_compact_json(claims))}"
    signature = private_key.sign(signing_input.encode("ascii"))
    return f"{signing_input}.{b64url_encode(signature)}"


class Ed25519TokenVerifier:
    """Verifies Naiko v1 tokens (see the module docstring) with an Ed25519 public key, and
    during a key rotation's overlap also with the previous ones (*previous_keys*).

    The checks, in order: presence, structure and version (``malformed_token``), the signature
    by one of the keys (``bad_signature``; nothing of the payload is parsed before it is
    authenticated), the claims' types (``malformed_token``), ``exp - iat`` against
    *max_lifetime* when set (``lifetime_too_long``), ``exp``/``iat`` with *leeway*
    (``expired_token``, ``not_yet_valid``), ``iss``/``aud`` when configured (``wrong_issuer``,
    ``wrong_audience``), and the subject (``bad_subject``, ``reserved_subject``).
    """

    def __init__(self, public_key: Ed25519PublicKey | bytes, *, issuer: str | None = None,
                 audience: str | None = None,
                 leeway: float = DEFAULT_LEEWAY_SECONDS,
                 previous_keys: Sequence[Ed25519PublicKey | bytes] = (),
                 max_lifetime: float | None = None) -> None:
        self._keys = tuple(load_public_key(key) if isinstance(key, bytes) else key
                           for key in (public_key, *previous_keys))
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.max_lifetime = max_lifetime

    @classmethod
    def from_base64(cls, public_key_b64: str, *, issuer: str | None = None,
                    audience: str | None = None,
                    leeway: float = DEFAULT_LEEWAY_SECONDS,
                    previous_keys_b64: Sequence[str] = (),
                    max_lifetime: float | None = None) -> Ed25519TokenVerifier:
        return cls(public_key_from_base64(public_key_b64), issuer=issuer, audience=audience,
                   leeway=leeway,
                   previous_keys=[public_key_from_base64(k) for k in previous_keys_b64],
                   max_lifetime=max_lifetime)

    def verify(self, token: str, now: float) -> str:
        from cryptography.exceptions import InvalidSignature

        token = check_token_shape(token, "naiko")
        version, payload_b64, signature_b64 = token.split(".")
        signature = b64url_decode(signature_b64)
        if len(signature) != 64:  # check_token_shape's 86 characters decode to 64 bytes
            raise InvalidToken(MALFORMED_TOKEN, "an Ed25519 signature is 64 bytes")
        signed = f"{version}.{payload_b64}".encode("ascii")
        for key in self._keys:
            try:
                key.verify(signature, signed)
                break
            except InvalidSignature:
                continue
        else:
            raise InvalidToken(BAD_SIGNATURE, "the signature does not match")
        claims = _decode_json_object(payload_b64, "payload")
        check_times(claims, now, self.leeway, self.max_lifetime)
        _check_issuer(claims, self.issuer)
        _check_audience(claims, self.audience)
        return check_subject(claims.get("sub"))


# -- OpenID Connect (Cognito, Auth0, …): RS256 JWTs checked against the provider's JWKS --------

JwksFetcher = Callable[[], Mapping[str, Any]]
"""Returns the provider's JWKS document (``{"keys": [...]}``)."""


def fetch_jwks_url(url: str, timeout: float = 3.0) -> JwksFetcher:
    """A :data:`JwksFetcher` that GETs *url* (``https://`` only) with the standard library."""
    if not url.startswith("https://"):
        raise ValueError("the JWKS URL must be https")

    def fetch() -> Mapping[str, Any]:
        import urllib.request

        with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 (https only)
            document: Mapping[str, Any] = json.loads(response.read(1 << 20))
        return document

    return fetch


def _rsa_key_from_jwk(jwk: Mapping[str, Any]) -> RSAPublicKey:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers

    n = int.from_bytes(b64url_decode(jwk["n"]), "big")
    e = int.from_bytes(b64url_decode(jwk["e"]), "big")
    key = RSAPublicNumbers(e, n).public_key()
    if key.key_size < 2048:
        raise ValueError("RSA keys shorter than 2048 bits are refused")
    return key


def _usable_keys(document: Mapping[str, Any]) -> dict[str, RSAPublicKey]:
    """The RS256 signing keys of a JWKS document by ``kid``; other or broken keys are skipped."""
    keys: dict[str, RSAPublicKey] = {}
    entries = document.get("keys") if isinstance(document, Mapping) else None
    for jwk in entries if isinstance(entries, list) else []:
        if not isinstance(jwk, Mapping) or not isinstance(jwk.get("kid"), str):
            continue
        if (jwk.get("kty"), jwk.get("use", "sig"), jwk.get("alg", "RS256")) != (
                "RSA", "sig", "RS256"):
            continue
        try:
            keys[jwk["kid"]] = _rsa_key_from_jwk(jwk)
        except (KeyError, TypeError, ValueError):
            continue
    return keys


class JwksTokenVerifier:
    """Verifies RS256 JWTs of an OpenID Connect provider against its JWKS (RFC 7515/7517/7519).

    Only ``alg: RS256`` is accepted (never ``none`` nor HMAC), the key is chosen by ``kid``,
    ``iss`` is always checked, and the audience is checked on *audience_claim* (``aud`` for ID
    tokens; ``client_id`` for Cognito access tokens). With *token_use* set (Cognito: ``"id"``
    or ``"access"``), the ``token_use`` claim must equal it. The player id is the *subject_claim*
    (``sub`` by default) and must satisfy the same rule as Naiko tokens. Unknown ``kid``s
    refetch the JWKS at most once per *refresh_interval* seconds (key rotation).

    For Cognito: ``issuer = "https://cognito-idp.<region>.amazonaws.com/<user-pool-id>"`` and
    JWKS URL ``issuer + "/.well-known/jwks.json"``.
    """

    def __init__(self, fetch_jwks: JwksFetcher, *, issuer: str, audience: str | None,
                 audience_claim: str = "aud", token_use: str | None = None,
                 subject_claim: str = "sub", leeway: float = DEFAULT_LEEWAY_SECONDS,
                 refresh_interval: float = 300.0,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._fetch = fetch_jwks
        self.issuer = issuer
        self.audience = audience
        self.audience_claim = audience_claim
        self.token_use = token_use
        self.subject_claim = subject_claim
        self.leeway = leeway
        self.refresh_interval = refresh_interval
        self._monotonic = monotonic
        self._keys: dict[str, RSAPublicKey] = {}
        self._fetched_at: float | None = None
        self._lock = threading.Lock()

    def _key(self, kid: str) -> RSAPublicKey:
        with self._lock:
            key = self._keys.get(kid)
            now = self._monotonic()
            stale = self._fetched_at is None or now - self._fetched_at >= self.refresh_interval
            if key is None and stale:
                try:
                    document = self._fetch()
                except Exception:
                    if not self._keys:
                        self._fetched_at = None  # nothing cached yet: try again next call
                    raise
                self._fetched_at = now
                self._keys = _usable_keys(document)
                key = self._keys.get(kid)
        if key is None:
            raise InvalidToken(BAD_SIGNATURE, "the token was signed with an unknown key")
        return key

    def verify(self, token: str, now: float) -> str:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.padding import PKCS1v15
        from cryptography.hazmat.primitives.hashes import SHA256

        token = _check_token_text(token)
        parts = token.split(".")
        if len(parts) != 3:
            raise InvalidToken(MALFORMED_TOKEN, "a JWT has three dot-separated parts")
        header_b64, payload_b64, signature_b64 = parts
        header = _decode_json_object(header_b64, "header")
        if header.get("alg") != "RS256":
            raise InvalidToken(MALFORMED_TOKEN, "only RS256 tokens are accepted")
        kid = header.get("kid")
        if not isinstance(kid, str):
            raise InvalidToken(MALFORMED_TOKEN, "the token header has no key id")
        try:
            signature = b64url_decode(signature_b64)
            b64url_decode(payload_b64)
        except ValueError as error:
            raise InvalidToken(MALFORMED_TOKEN, "a token part is not base64url") from error
        key = self._key(kid)
        try:
            key.verify(signature, f"{header_b64}.{payload_b64}".encode("ascii"), PKCS1v15(),
                       SHA256())
        except InvalidSignature:
            raise InvalidToken(BAD_SIGNATURE, "the signature does not match") from None
        claims = _decode_json_object(payload_b64, "payload")
        check_times(claims, now, self.leeway)
        _check_issuer(claims, self.issuer)
        _check_audience(claims, self.audience, self.audience_claim)
        if self.token_use is not None and claims.get("token_use") != self.token_use:
            raise InvalidToken(WRONG_AUDIENCE, f"token_use is not {self.token_use!r}")
        return check_subject(claims.get(self.subject_claim))
