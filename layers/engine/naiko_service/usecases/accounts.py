""":mod:`naiko_service.usecases.accounts`: what operators do to accounts (issue 27, R10.3).

An integrity flag (``docs/integrity.md``) is reviewed by a person, who may then:

- **freeze** an account: from then on it cannot take chips to a table (join, quick seat, a
  seat from the waiting list, a reload), queue on a waiting list, create or register for a
  tournament, or receive a grant. Its requests get ``account_frozen`` (:func:`frozen_error`).
  What it already owns stays in it, held: a stack it cashes out of a table, the prize of a
  tournament it entered before the freeze land in the frozen balance, which it cannot spend;
  the refusal sits in the account's own write (the conditional transaction of a buy-in, an
  entry, a set's growth, a grant), so no race lets one through;
- **unfreeze** it;
- **reverse** a flagged transfer: move chips back from the account that took them to the one
  that gave them, through the ledger (a ``reversal`` entry on each), in one conditional
  transaction that never takes an account below zero and happens once per reversal id.

Every action is written with its operator log entry (who did it, why, when) in the same
transaction, and logged on the structured logger; :func:`operator_log` reads the log back.
Nothing here is reachable with a player's token: ``scripts/operator.py`` calls it with the
AWS credentials of an operator. Nothing about a freeze reaches other players: it lives on the
account item, which no table view reads.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from typing import Any

from .. import pages
from ..ports import (
    AccountFrozen,
    AccountsAdmin,
    AlreadyReversed,
    InsufficientFunds,
    NotFrozen,
    OperatorAction,
)
from .base import ServiceError

ACCOUNT_FROZEN = "account_frozen"
"""The error code of a frozen account's refused request (docs/protocol.md, "Error codes")."""

MAX_REVERSAL = 10**9
MAX_TEXT = 500
LOG_LIST = "operator_log"
"""The operator log's cursor name (:mod:`naiko_service.pages`)."""

_log = logging.getLogger("naiko_service.operator")


def frozen_error() -> ServiceError:
    """The refusal a frozen account's request gets (only that player ever sees it)."""
    return ServiceError(ACCOUNT_FROZEN, "your account is frozen while it is reviewed: it "
                        "cannot sit, queue, register or receive chips; contact support")


class OperatorError(ValueError):
    """An operator action refused; ``code`` says why, nothing was written."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def log_action(action: OperatorAction) -> None:
    """The structured logger's line of *action* (one JSON object)."""
    _log.info("operator_action %s", json.dumps(action.to_dict(), sort_keys=True))


Log = Callable[[OperatorAction], None]


def _text(name: str, value: str) -> str:
    value = value.strip()
    if not value or len(value) > MAX_TEXT:
        raise OperatorError("invalid_request", f"{name} must be 1-{MAX_TEXT} characters")
    return value


def _action(operator: str, action: str, player_id: str, reason: str, now_ms: int,
            action_id: str | None = None, **details: Any) -> OperatorAction:
    return OperatorAction(action_id or uuid.uuid4().hex, _text("the operator", operator),
                          action, _text("the account", player_id), _text("the reason", reason),
                          now_ms, details)


def freeze(admin: AccountsAdmin, operator: str, player_id: str, reason: str, now_ms: int,
           log: Log = log_action) -> OperatorAction:
    """Freeze *player_id*'s account, logged as done by *operator* for *reason*.

    :raises OperatorError: ``unknown_account``, ``already_frozen`` (nothing written)."""
    return _set_frozen(admin, True, operator, player_id, reason, now_ms, log)


def unfreeze(admin: AccountsAdmin, operator: str, player_id: str, reason: str, now_ms: int,
             log: Log = log_action) -> OperatorAction:
    """Unfreeze *player_id*'s account.

    :raises OperatorError: ``unknown_account``, ``not_frozen`` (nothing written)."""
    return _set_frozen(admin, False, operator, player_id, reason, now_ms, log)


def _set_frozen(admin: AccountsAdmin, frozen: bool, operator: str, player_id: str, reason: str,
                now_ms: int, log: Log) -> OperatorAction:
    action = _action(operator, "freeze" if frozen else "unfreeze", player_id, reason, now_ms)
    try:
        admin.set_frozen(action.player_id, frozen, action)
    except KeyError:
        raise OperatorError("unknown_account", f"no account {player_id!r}") from None
    except AccountFrozen:
        raise OperatorError("already_frozen", f"{player_id} is frozen already") from None
    except NotFrozen:
        raise OperatorError("not_frozen", f"{player_id} is not frozen") from None
    log(action)
    return action


def reverse(admin: AccountsAdmin, operator: str, source: str, target: str, amount: int,
            reason: str, reversal_id: str, now_ms: int,
            log: Log = log_action) -> tuple[OperatorAction, bool]:
    """Move *amount* chips from *source* (who took them) back to *target* (who gave them):
    ``(the action, True)``, or ``(the first action, False)`` when *reversal_id* was used
    already (a retry: nothing moves twice).

    :raises OperatorError: ``invalid_request``, ``insufficient_funds`` (*source* holds less:
        never below zero), ``unknown_account`` (*target*)."""
    if not 0 < amount <= MAX_REVERSAL:
        raise OperatorError("invalid_request", f"the amount must be 1-{MAX_REVERSAL}")
    if source == target:
        raise OperatorError("invalid_request", "a reversal moves chips between two accounts")
    action = _action(operator, "reverse", source, reason, now_ms,
                     _text("the reversal id", reversal_id), to=_text("the account", target),
                     amount=amount)
    try:
        admin.reverse(action.player_id, target, amount, action)
    except AlreadyReversed as done:
        return done.action, False
    except InsufficientFunds:
        raise OperatorError("insufficient_funds", f"{source} holds less than {amount} chips: "
                            "nothing moved (reverse what the account holds, or wait for it "
                            "to cash out)") from None
    except KeyError:
        raise OperatorError("unknown_account", f"no account {target!r}") from None
    log(action)
    return action, True


def operator_log(admin: AccountsAdmin, limit: int = pages.PAGE_LIMIT_DEFAULT,
                 cursor: str | None = None) -> tuple[list[OperatorAction], str | None]:
    """A page of the operator log, newest first, and the cursor of the next page (``None`` on
    the last one).

    :raises pages.BadCursor: *cursor* is not one of this list's."""
    before = None if cursor is None else str(pages.decode(LOG_LIST, cursor)["before"])
    actions, after = admin.operator_log(max(1, min(limit, pages.PAGE_LIMIT_MAX)), before)
    return actions, None if after is None else pages.encode(LOG_LIST, {"before": after})
