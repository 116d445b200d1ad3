""":mod:`naiko_service.protocol` defines every WebSocket message, in and out, as pydantic models.

Client -> server: a JSON object whose ``action`` names the route (API Gateway's route selection
expression is ``$request.body.action``) and that carries a ``request_id``. The player's identity
never comes from a message: it comes from the verified token of the connection.

Server -> client: objects with a ``type``: ``ack``, ``error``, ``snapshot``, ``update``,
``tables``. :func:`json_schemas` publishes them (``scripts/export_schemas.py``).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, TypeAdapter

MAX_FRAME_BYTES = 32 * 1024
"""API Gateway WebSocket frames are at most 32 KB."""

RequestId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
TableId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Chips = Annotated[StrictInt, Field(gt=0, le=10**12)]
SeatIndex = Annotated[StrictInt, Field(ge=0, le=9)]


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    request_id: RequestId
    """Chosen by the client, unique per request; a replay is answered, not applied twice."""


class CreateTable(Request):
    """Create a cash or private table; the creator is its host."""

    action: Literal["create_table"]
    name: Annotated[str, Field(min_length=1, max_length=40)]
    variant: Literal["NLHE", "PLO", "NAIKO"] = "NLHE"
    seat_count: Annotated[StrictInt, Field(ge=2, le=10)] = 6
    small_blind: Chips
    big_blind: Chips
    min_buy_in: Chips
    max_buy_in: Chips
    decision_seconds: Annotated[StrictInt, Field(ge=5, le=120)] | None = None
    """The decision clock (R8.1); the deployment's default (20 s unless configured) if absent."""
    private: StrictBool = False
    invited: Annotated[list[Annotated[str, Field(min_length=1, max_length=64)]],
                       Field(max_length=50)] = []
    bots: StrictBool = False


class ListTables(Request):
    """Public tables with a free seat."""

    action: Literal["list_tables"]


class JoinTable(Request):
    """Sit down with a buy-in moved from the account (R7.1)."""

    action: Literal["join_table"]
    table_id: TableId
    buy_in: Chips
    seat_index: SeatIndex | None = None


class LeaveTable(Request):
    """Leave the table; the stack returns to the account (after the hand if still in it)."""

    action: Literal["leave_table"]
    table_id: TableId


class SitOut(Request):
    action: Literal["sit_out"]
    table_id: TableId


class SitIn(Request):
    action: Literal["sit_in"]
    table_id: TableId


class AddChips(Request):
    """Reload between hands (R7.1)."""

    action: Literal["add_chips"]
    table_id: TableId
    amount: Chips


class Snapshot(Request):
    """Watch a table (as a player or spectator) and get a full snapshot of its confirmed state
    (also how a reconnecting client catches up, R8.3)."""

    action: Literal["snapshot"]
    table_id: TableId


class Act(Request):
    """A poker action for the requester's own seat. ``amount`` is the total "to" amount of a
    bet or raise (``raise_to``), required for ``bet``/``raise_to`` only."""

    action: Literal["act"]
    table_id: TableId
    move: Literal["fold", "check", "call", "bet", "raise_to", "all_in"]
    amount: Chips | None = None


class UsePower(Request):
    """Naiko mode: use a power on your turn, before your action (R5.5)."""

    action: Literal["use_power"]
    table_id: TableId
    power: Literal["peek", "sleeve_swap", "short_anchor"]
    target_seat: SeatIndex | None = None
    card_index: Annotated[StrictInt, Field(ge=0, le=1)] | None = None


class Shield(Request):
    """Naiko mode: answer a Short Anchor aimed at you with Seal Shield (R6.4)."""

    action: Literal["shield"]
    table_id: TableId


class PassWindow(Request):
    """Naiko mode: let the Short Anchor aimed at you apply (R6.5)."""

    action: Literal["pass_window"]
    table_id: TableId


ClientRequest = (CreateTable | ListTables | JoinTable | LeaveTable | SitOut | SitIn | AddChips
                 | Snapshot | Act | UsePower | Shield | PassWindow)
"""Every request a client can send; the service dispatches on it with an exhaustive ``match``
(``mypy --strict`` proves every kind is handled)."""

AnyRequest = Annotated[ClientRequest, Field(discriminator="action")]
"""The request union, told apart by ``action`` (a pydantic discriminated union)."""

ROUTES: tuple[str, ...] = tuple(
    get_args(model.model_fields["action"].annotation)[0] for model in get_args(ClientRequest))
"""Every game route of the WebSocket API (besides ``$connect``, ``$disconnect``, ``$default``),
read off the request models themselves."""

_REQUEST_ADAPTER: TypeAdapter[ClientRequest] = TypeAdapter(AnyRequest)


class ProtocolError(ValueError):
    """A frame that is not a valid request; ``code`` is stable, ``request_id`` if readable."""

    def __init__(self, code: str, message: str, request_id: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


def parse_request(body: str | bytes | None) -> ClientRequest:
    """Parse one client frame into its request model.

    :raises ProtocolError: ``frame_too_large``, ``malformed_json``, ``unknown_action`` or
        ``invalid_request`` (with pydantic's explanation of the first problems).
    """
    if body is None:
        raise ProtocolError("malformed_json", "empty message")
    raw = body.encode() if isinstance(body, str) else body
    if len(raw) > MAX_FRAME_BYTES:
        raise ProtocolError("frame_too_large",
                            f"a frame is at most {MAX_FRAME_BYTES} bytes, got {len(raw)}")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError("malformed_json", f"the message is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise ProtocolError("malformed_json", "the message must be a JSON object")
    request_id = data.get("request_id") if isinstance(data.get("request_id"), str) else None
    action = data.get("action")
    if action not in ROUTES:
        raise ProtocolError("unknown_action", f"unknown action {action!r}; expected one of "
                            f"{', '.join(ROUTES)}", request_id)
    try:
        return _REQUEST_ADAPTER.validate_python(data)
    except ValueError as exc:
        errors: list[dict[str, Any]] = getattr(exc, "errors", lambda: [])()
        detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}"
                           for e in errors[:3]) or str(exc)
        raise ProtocolError("invalid_request", f"invalid {action}: {detail}",
                            request_id) from exc


# -- server -> client ------------------------------------------------------------------------

class Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Ack(Message):
    """The request was applied at ``version`` (or had been: ``replayed``)."""

    type: Literal["ack"]
    request_id: str
    table_id: str | None = None
    version: int | None = None
    replayed: bool = False


class Error(Message):
    """The request was refused; nothing changed."""

    type: Literal["error"]
    request_id: str | None
    code: str
    message: str


class SnapshotMessage(Message):
    """The whole table as this connection may see it (its own seat's view)."""

    type: Literal["snapshot"]
    table_id: str
    version: int
    view: dict[str, Any]
    request_id: str | None = None


class Update(Message):
    """What changed (events visible to this connection) and the resulting view. ``version``
    increases by exactly one per table write: a client that sees a gap asks for a snapshot."""

    type: Literal["update"]
    table_id: str
    version: int
    events: list[dict[str, Any]]
    view: dict[str, Any]


class Tables(Message):
    type: Literal["tables"]
    request_id: str
    tables: list[dict[str, Any]]


AnyMessage = Annotated[Ack | Error | SnapshotMessage | Update | Tables,
                       Field(discriminator="type")]


def json_schemas() -> dict[str, Any]:
    """JSON Schemas of every request and message, generated from the models."""
    return {
        "requests": TypeAdapter(AnyRequest).json_schema(),
        "messages": TypeAdapter(AnyMessage).json_schema(),
    }


def error_message(code: str, message: str, request_id: str | None) -> dict[str, Any]:
    return {"type": "error", "request_id": request_id, "code": code, "message": message}
