"""Make an Ed25519 key pair and mint Naiko v1 player tokens, for local use and tests.

    python scripts/mint_token.py --new-key dev-auth.pem
        writes the private key (PEM, mode 0600) and prints the public key for AUTH_PUBLIC_KEY
    python scripts/mint_token.py --key dev-auth.pem --player alice --ttl 3600 --stage prod
        prints a token for player "alice" on stage "prod", valid for an hour
    NAIKO_AUTH_PRIVATE_KEY="$(cat dev-auth.pem)" python scripts/mint_token.py --player alice
        the same, with the key from the environment
    python scripts/mint_token.py --key dev-auth.pem --public-key
        prints the public key of an existing private key

A token is bound to its stage: ``iss`` and ``aud`` are ``naiko-<stage>``, which the deployed
authorizer requires (``template.yaml``), so a token minted for ``dev`` is refused by ``prod``.
The stage is ``--stage``, else ``$NAIKO_STAGE``, else ``dev`` (the template's default);
``--issuer``/``--audience`` override the claims (``--stage ''`` leaves them out). The token
format is in ``docs/auth.md``. Importable: :func:`generate_keypair`, :func:`mint`,
:func:`public_key_of`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "layers" / "engine") not in sys.path:
    sys.path.append(str(ROOT / "layers" / "engine"))

from naiko_service import auth  # noqa: E402

PRIVATE_KEY_ENV = "NAIKO_AUTH_PRIVATE_KEY"
STAGE_ENV = "NAIKO_STAGE"
DEFAULT_STAGE = "dev"
DEFAULT_TTL = 3600
MAX_TTL = 30 * 24 * 3600


def generate_keypair() -> tuple[bytes, str]:
    """A new key pair: ``(private key PEM, base64 raw public key for AUTH_PUBLIC_KEY)``."""
    key = auth.generate_private_key()
    return auth.private_key_to_pem(key), auth.public_key_to_base64(key.public_key())


def public_key_of(private_key_pem: bytes | str) -> str:
    """The ``AUTH_PUBLIC_KEY`` value that matches *private_key_pem*."""
    return auth.public_key_to_base64(auth.private_key_from_pem(private_key_pem).public_key())


def mint(private_key_pem: bytes | str, player: str, *, ttl: int = DEFAULT_TTL,
         issuer: str | None = None, audience: str | None = None,
         now: float | None = None, stage: str | None = None) -> str:
    """A token for *player*, issued at *now* (default: the current time), valid *ttl* seconds.
    With *stage*, ``iss`` and ``aud`` default to ``naiko-<stage>``
    (:func:`naiko_service.auth.stage_claim`).

    :raises ValueError: For a bad key, player id or ttl.
    """
    if not 0 < ttl <= MAX_TTL:
        raise ValueError(f"ttl must be between 1 and {MAX_TTL} seconds")
    if stage:
        issuer = auth.stage_claim(stage) if issuer is None else issuer
        audience = auth.stage_claim(stage) if audience is None else audience
    issued_at = int(time.time() if now is None else now)
    return auth.sign_token(auth.private_key_from_pem(private_key_pem), player,
                           issued_at=issued_at, expires_at=issued_at + ttl,
                           issuer=issuer, audience=audience)


def write_private_key(path: Path, pem: bytes, *, force: bool = False) -> None:
    """Write *pem* to *path* readable by the owner only; an existing file is kept unless
    *force*."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if force else os.O_EXCL)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as file:
        file.write(pem)
    os.chmod(path, 0o600)


def _read_key(path: str | None) -> bytes:
    if path:
        return Path(path).read_bytes()
    env = os.environ.get(PRIVATE_KEY_ENV)
    if env:
        return env.encode("ascii")
    raise SystemExit(f"mint_token: give --key PATH or set {PRIVATE_KEY_ENV} (a PEM private key)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--new-key", metavar="PATH",
                        help="write a new private key (PEM) and print its public key")
    action.add_argument("--player", help="mint a token for this player id")
    action.add_argument("--public-key", action="store_true",
                        help="print the public key (AUTH_PUBLIC_KEY) of --key")
    parser.add_argument("--key", metavar="PATH",
                        help=f"private key PEM file (default: ${PRIVATE_KEY_ENV})")
    parser.add_argument("--ttl", type=int, default=DEFAULT_TTL, help="lifetime in seconds")
    parser.add_argument("--stage", default=os.environ.get(STAGE_ENV) or DEFAULT_STAGE,
                        help=f"the stage the token is for: iss and aud naiko-STAGE (default: "
                             f"${STAGE_ENV}, else {DEFAULT_STAGE}; '' for neither)")
    parser.add_argument("--issuer", help="iss claim (default: naiko-STAGE)")
    parser.add_argument("--audience", help="aud claim (default: naiko-STAGE)")
    parser.add_argument("--force", action="store_true", help="let --new-key overwrite a file")
    args = parser.parse_args(argv)

    try:
        if args.new_key:
            pem, public = generate_keypair()
            write_private_key(Path(args.new_key), pem, force=args.force)
            print(public)
        elif args.public_key:
            print(public_key_of(_read_key(args.key)))
        elif args.player is not None:
            print(mint(_read_key(args.key), args.player, ttl=args.ttl, issuer=args.issuer,
                       audience=args.audience, stage=args.stage))
        else:
            parser.error("give --new-key PATH, --player ID or --public-key")
    except (OSError, ValueError) as error:
        print(f"mint_token: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
