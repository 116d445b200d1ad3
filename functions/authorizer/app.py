"""``$connect`` Lambda REQUEST authorizer of the Naiko WebSocket API.

The client connects with ``wss://…?token=<TOKEN>``. This handler reads the ``token`` query-string
parameter, verifies it (:mod:`naiko_service.auth`) and answers API Gateway:

* valid token: an IAM policy allowing ``execute-api:Invoke`` on the event's ``methodArn`` (the
  ``$connect`` route), ``principalId`` = the player id and ``context`` = ``{"player_id": ...}``
  (the ``$connect`` integration reads it at ``requestContext.authorizer.player_id``);
* anything else: it raises ``Exception("Unauthorized")``, which API Gateway turns into ``401``.
  (Returning a ``Deny`` policy would give ``403``; any other error would give ``500``.)

Configuration (environment, read once per container on the first call):

``AUTH_PROVIDER``
    ``naiko`` (default): Naiko v1 Ed25519 tokens, or ``oidc``: RS256 JWTs of an OpenID Connect
    provider such as Cognito.
``AUTH_PUBLIC_KEY``
    ``naiko``: standard base64 of the raw 32-byte Ed25519 public key (required).
``AUTH_PREVIOUS_PUBLIC_KEY``
    ``naiko``: during a key rotation's overlap, the previous public key(s) (same format,
    separated by commas or spaces; empty: none). Tokens signed with them are still accepted.
``AUTH_MAX_TOKEN_SECONDS``
    ``naiko``: the longest lifetime (``exp - iat``) accepted (``lifetime_too_long`` beyond);
    it bounds the overlap of a key rotation (``docs/auth.md``). Unset: no limit.
``AUTH_ISSUER`` / ``AUTH_AUDIENCE``
    Expected ``iss`` / ``aud``; optional for ``naiko``, ``AUTH_ISSUER`` required for ``oidc``.
    ``template.yaml`` sets both to ``naiko-<Stage>``: a token of another stage is refused
    (``wrong_issuer``).
``EDGE_ORIGIN_SECRET``
    With ``EdgeProtection`` on, the value of the ``X-Naiko-Edge`` header CloudFront adds to every
    request: a handshake without it (sent straight to the ``execute-api`` address, around AWS
    WAF) is refused first (``not_via_edge``). Empty or unset: not checked.
``AUTH_JWKS_URL``, ``AUTH_AUDIENCE_CLAIM``, ``AUTH_TOKEN_USE``
    ``oidc`` only: JWKS URL (default ``AUTH_ISSUER + "/.well-known/jwks.json"``), the claim
    holding the audience (default ``aud``; ``client_id`` for Cognito access tokens), and the
    required Cognito ``token_use`` (``id`` or ``access``), if any.

The token is never logged, and neither is the event (it carries the token).

Cheap rejection (issue 23 item 4): a handshake without a token never reaches this function
(``IdentitySource`` ``route.request.querystring.token``: API Gateway answers 401 itself), and one
whose token has no possible shape (:func:`naiko_service.auth.check_token_shape`: too long, not
three base64url parts, another version, a signature of the wrong size) is refused before the
verifier is built or used: no ``cryptography`` import, no key, no JWKS fetch. Only well-shaped
tokens pay for a signature check.

Metrics (namespace ``Naiko``, dimension ``service``): ``AuthAllowed``, ``AuthDenied`` (a token
refused after its signature or claims were checked: every player, when ``AuthPublicKey`` is
wrong), ``AuthRejectedCheaply`` (refused by shape), ``AuthMisconfigured`` (no verifier could be
built), ``AuthErrors`` (an unexpected event or an unreachable identity provider);
``AuthDeniedAlarm`` in ``template.yaml`` watches them.
"""

from __future__ import annotations

import hmac
import os
import time
from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit
from naiko_service.auth import (
    Ed25519TokenVerifier,
    InvalidToken,
    JwksTokenVerifier,
    TokenVerifier,
    check_token_shape,
    fetch_jwks_url,
)
from naiko_service.i18n import language_of

logger = Logger(service="naiko")
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or "Naiko",
                  service="naiko")

_verifier: TokenVerifier | None = None


def provider_from_env(env: Mapping[str, str]) -> str:
    """``AUTH_PROVIDER``, normalised (``naiko`` when unset)."""
    return env.get("AUTH_PROVIDER", "naiko").strip().lower() or "naiko"


def verifier_from_env(env: Mapping[str, str]) -> TokenVerifier:
    """The verifier that *env* configures. :raises ValueError: If the configuration is bad."""
    provider = provider_from_env(env)
    issuer = env.get("AUTH_ISSUER") or None
    audience = env.get("AUTH_AUDIENCE") or None
    if provider == "naiko":
        public_key = env.get("AUTH_PUBLIC_KEY", "")
        if not public_key.strip():
            raise ValueError("AUTH_PUBLIC_KEY is not set")
        previous = env.get("AUTH_PREVIOUS_PUBLIC_KEY", "").replace(",", " ").split()
        max_lifetime = (env.get("AUTH_MAX_TOKEN_SECONDS") or "").strip()
        if max_lifetime and (not max_lifetime.isdigit() or int(max_lifetime) <= 0):
            raise ValueError("AUTH_MAX_TOKEN_SECONDS must be a positive whole number")
        return Ed25519TokenVerifier.from_base64(
            public_key, issuer=issuer, audience=audience, previous_keys_b64=previous,
            max_lifetime=int(max_lifetime) if max_lifetime else None)
    if provider == "oidc":
        if issuer is None:
            raise ValueError("AUTH_ISSUER is required with AUTH_PROVIDER=oidc")
        jwks_url = env.get("AUTH_JWKS_URL") or issuer.rstrip("/") + "/.well-known/jwks.json"
        return JwksTokenVerifier(
            fetch_jwks_url(jwks_url), issuer=issuer, audience=audience,
            audience_claim=env.get("AUTH_AUDIENCE_CLAIM") or "aud",
            token_use=env.get("AUTH_TOKEN_USE") or None)
    raise ValueError(f"unknown AUTH_PROVIDER {provider!r}")


def get_verifier() -> TokenVerifier:
    """The container's verifier, built on first use (a failed build is retried next call)."""
    global _verifier
    if _verifier is None:
        _verifier = verifier_from_env(os.environ)
    return _verifier


def reset_verifier() -> None:
    """Forget the cached verifier (tests, or after changing the environment)."""
    global _verifier
    _verifier = None


def allow_policy(player_id: str, method_arn: str, lang: str | None = None) -> dict[str, Any]:
    """The authorizer response that lets *player_id* connect; *lang*, the connection's
    language (``?lang=``), rides in its context too, which API Gateway passes with every frame
    (docs/protocol.md, "Languages")."""
    context: dict[str, Any] = {"player_id": player_id}
    if lang is not None:
        context["lang"] = lang
    return {
        "principalId": player_id,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [
                {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": method_arn},
            ],
        },
        "context": context,
    }


EDGE_HEADER = "x-naiko-edge"
"""The header CloudFront adds with ``EDGE_ORIGIN_SECRET`` (template.yaml ``EdgeDistribution``)."""


def came_through_the_edge(event: Mapping[str, Any], secret: str) -> bool:
    """Whether *event* carries the edge's header with *secret* (compared in constant time)."""
    headers = event.get("headers") or {}
    value = next((v for k, v in headers.items() if str(k).lower() == EDGE_HEADER), None)
    return isinstance(value, str) and hmac.compare_digest(value.encode(), secret.encode())


def _count(name: str) -> None:
    metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)


def _deny(code: str, connection_id: object) -> Exception:
    logger.info("connection denied", extra={"reason": code, "connection_id": connection_id})
    return Exception("Unauthorized")


def _failure(error: Exception, connection_id: object) -> Exception:
    """Log and count an authorizer failure; the exception that refuses the handshake. Only the
    error's type is logged, in case a message ever quoted the input."""
    logger.error("authorizer failure",
                 extra={"reason": "internal_error", "error": type(error).__name__,
                        "connection_id": connection_id})
    _count("AuthErrors")
    return Exception("Unauthorized")


@logger.inject_lambda_context(log_event=False, clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    connection_id = None
    try:
        connection_id = (event.get("requestContext") or {}).get("connectionId")
        method_arn = event["methodArn"]
        if not isinstance(method_arn, str) or not method_arn.startswith("arn:"):
            raise ValueError("the event has no methodArn")
        edge_secret = os.environ.get("EDGE_ORIGIN_SECRET", "")
        if edge_secret and not came_through_the_edge(event, edge_secret):
            raise InvalidToken("not_via_edge", "the handshake did not come through the edge")
        token = (event.get("queryStringParameters") or {}).get("token") or ""
        # Before the verifier exists: junk costs string checks, never a key or crypto.
        token = check_token_shape(token, provider_from_env(os.environ))
    except InvalidToken as error:
        _count("AuthRejectedCheaply")
        raise _deny(error.code, connection_id) from None
    except Exception as error:  # an unexpected event: fail closed
        raise _failure(error, connection_id) from None
    try:
        verifier = get_verifier()
    except Exception as error:  # fail closed; the message names the bad setting, not the token
        logger.error("authorizer misconfigured",
                     extra={"reason": "misconfigured", "error": f"{type(error).__name__}: {error}"})
        _count("AuthMisconfigured")
        raise Exception("Unauthorized") from None
    try:
        player_id = verifier.verify(token, time.time())
    except InvalidToken as error:
        _count("AuthDenied")
        raise _deny(error.code, connection_id) from None
    except Exception as error:  # an unreachable identity provider: fail closed
        raise _failure(error, connection_id) from None
    logger.info("connection authorized",
                extra={"player_id": player_id, "connection_id": connection_id})
    _count("AuthAllowed")
    requested = (event.get("queryStringParameters") or {}).get("lang")
    return allow_policy(player_id, method_arn,
                        language_of(requested) if requested is not None else None)
