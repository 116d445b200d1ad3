""":mod:`naiko.errors` defines the engine's rejections: one exception per kind, each with a
stable ``code`` that clients can switch on and the rule id it enforces.

Every rejection leaves the state exactly as it was (see :func:`naiko.engine.apply`).
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every rejection by the engine.

    :param code: A stable, machine-readable error code (``snake_case``).
    :param message: A human-readable explanation.
    :param rule_id: The rule of ``RULES.md`` that the rejection enforces, if any.
    """

    code = "engine_error"

    def __init__(self, message: str, *, code: str | None = None, rule_id: str | None = None):
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.rule_id = rule_id

    def to_dict(self) -> dict[str, str | None]:
        """The error as a JSON-compatible value."""
        return {"code": self.code, "message": self.message, "rule_id": self.rule_id}


class MalformedCommand(EngineError):
    """The command is not well formed (unknown kind, missing or mistyped field)."""

    code = "malformed_command"


class UnknownSeat(EngineError):
    """The command names a seat that does not exist or holds nobody."""

    code = "unknown_seat"


class NotYourTurn(EngineError):
    """A player acted while another seat is to act."""

    code = "not_your_turn"


class NoHandInProgress(EngineError):
    """A betting command arrived when no hand is being played (before a hand or after it ended)."""

    code = "no_hand_in_progress"


class IllegalAction(EngineError):
    """The action breaks a rule (wrong amount, check facing a bet, raise not reopened...)."""

    code = "illegal_action"


class TableError(EngineError):
    """A seat or table command cannot be done now (seat taken, hand in progress...)."""

    code = "table_error"
