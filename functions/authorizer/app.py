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
``AUTH_JWKS_URL``, ``AUTH_AUDIENCE_CLAIM``, ``AUTH_TOKEN_USE``
    ``oidc`` only: JWKS URL (default ``AUTH_ISSUER + "/.well-known/jwks.json"``), the claim
    holding the audience (default ``aud``; ``client_id`` for Cognito access tokens), and the
    required Cognito ``token_use`` (``id`` or ``access``), if any.

The token is never logged, and neither is the event (it carries the token).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools import Logger
from naiko_service.auth import (
    Ed25519TokenVerifier,
    InvalidToken,
    JwksTokenVerifier,
    TokenVerifier,
    fetch_jwks_url,
)

logger = Logger(service="naiko")

_verifier: TokenVerifier | None = None


def verifier_from_env(env: Mapping[str, str]) -> TokenVerifier:
    """The verifier that *env* configures. :raises ValueError: If the configuration is bad."""
    provider = env.get("AUTH_PROVIDER", "naiko").strip().lower() or "naiko"
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


def allow_policy(player_id: str, method_arn: str) -> dict[str, Any]:
    """The authorizer response that lets *player_id* connect."""
    return {
        "principalId": player_id,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [
                {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": method_arn},
            ],
        },
        "context": {"player_id": player_id},
    }


@logger.inject_lambda_context(log_event=False, clear_state=True)
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    try:
        verifier = get_verifier()
    except Exception as error:  # fail closed; the message names the bad setting, not the token
        logger.error("authorizer misconfigured",
                     extra={"reason": "misconfigured", "error": f"{type(error).__name__}: {error}"})
        raise Exception("Unauthorized") from None
    connection_id = None
    try:
        connection_id = (event.get("requestContext") or {}).get("connectionId")
        method_arn = event["methodArn"]
        if not isinstance(method_arn, str) or not method_arn.startswith("arn:"):
            raise ValueError("the event has no methodArn")
        token = (event.get("queryStringParameters") or {}).get("token") or ""
        player_id = verifier.verify(token, time.time())  # "" and non-strings are refused
    except InvalidToken as error:
        logger.info("connection denied",
                    extra={"reason": error.code, "connection_id": connection_id})
        raise Exception("Unauthorized") from None
    except Exception as error:
        # An unexpected event or an unreachable identity provider: fail closed. Only the type is
        # logged, in case a message ever quoted the input.
        logger.error("authorizer failure",
                     extra={"reason": "internal_error", "error": type(error).__name__,
                            "connection_id": connection_id})
        raise Exception("Unauthorized") from None
    logger.info("connection authorized",
                extra={"player_id": player_id, "connection_id": connection_id})
    return allow_policy(player_id, method_arn)
