""":mod:`naiko_service.protocol` defines every WebSocket message, in and out, as pydantic models.

Client -> server: a JSON object whose ``action`` names the route (API Gateway's route selection
expression is ``$request.body.action``) and that carries a ``request_id``. The player's identity
never comes from a message: it comes from the verified token of the connection.

Server -> client: objects with a ``type``: ``ack``, ``error``, ``snapshot``, ``update``,
``tables``, ... (``hands`` and ``hand`` answer the hand-history requests, R10.1).
:func:`json_schemas` publishes them (``scripts/export_schemas.py``).
"""

import json
import re
import unicodedata
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    TypeAdapter,
)

from .limits import MAX_DEVICE_TOKEN
from .pages import PAGE_LIMIT_DEFAULT, Cursor, PageLimit

MAX_FRAME_BYTES = 32 * 1024
"""API Gateway WebSocket frames are at most 32 KB."""

LOBBY_PAGE_MAX = 50
"""Tables on one page of ``list_tables`` at most (a summary is at most ~450 bytes)."""

TOURNAMENTS_PAGE_MAX = 5
"""Tournaments on one page of ``list_tournaments`` at most: a row carries the terms (the blind
structure, the payout table), up to ~5 KB (``tests/unit/test_pages.py``)."""

RequestId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")]
TableId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Chips = Annotated[StrictInt, Field(gt=0, le=10**12)]

DISPLAY_TEXT_MAX = 40
"""Characters of display text (a table's name), counted after NFC normalisation."""

_FORMAT_ALLOWED = frozenset("\u200d")
"""Format characters (Unicode category Cf) display text may hold: the zero-width joiner of
emoji sequences. Bidi overrides and isolates (U+202A-U+202E, U+2066-U+2069), marks and
invisible characters are all refused."""


def _display_text(value: str) -> str:
    """Text shown to other players (a table's name): NFC, trimmed, not blank, and without
    control, format (bidi overrides: a name must not reorder the lobby), private-use or
    unassigned characters.

    >>> _display_text("  Friday \u2663 ")
    'Friday \u2663'
    """
    text = unicodedata.normalize("NFC", value).strip()
    if not text:
        raise ValueError("must not be blank")
    if len(text) > DISPLAY_TEXT_MAX:  # NFC can lengthen text (U+FB2C is 3 code points)
        raise ValueError(f"must be at most {DISPLAY_TEXT_MAX} characters")
    for char in text:
        category = unicodedata.category(char)
        if category in ("Cc", "Cs", "Co", "Cn") or (
                category == "Cf" and char not in _FORMAT_ALLOWED):
            raise ValueError(f"must not contain control or formatting characters "
                             f"(U+{ord(char):04X})")
    return text


def _identifier(value: str) -> str:
    """A player id named in a request: printable, no spaces, no control or format characters."""
    if any(char.isspace() or unicodedata.category(char)[0] in ("C", "Z") for char in value):
        raise ValueError("must be printable, without spaces")
    return value


DisplayText = Annotated[str, Field(min_length=1, max_length=DISPLAY_TEXT_MAX),
                        AfterValidator(_display_text)]
PlayerId = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(_identifier)]
SeatIndex = Annotated[StrictInt, Field(ge=0, le=9)]

# -- table chat (R8.9) ---------------------------------------------------------------------------

CHAT_TEXT_MAX = 200
"""Characters of one chat message, counted after :func:`_chat_text` normalised it."""

ChatSetting = Literal["on", "apart", "off"]
"""R8.9: a table's chat: ``on`` (everyone at the table reads everyone), ``apart`` (during a
hand, the seated players' chat goes to the seated players only and the spectators' to the
spectators only; between hands as ``on``) or ``off`` (no chat, no emotes)."""

EMOTES: tuple[str, ...] = ("thumbs_up", "clap", "laugh", "wow", "sad", "angry", "thinking",
                           "gg", "nice_hand", "thanks")
"""R8.9: the emote codes (clients draw each their own way)."""

Emote = Literal["thumbs_up", "clap", "laugh", "wow", "sad", "angry", "thinking", "gg",
                "nice_hand", "thanks"]

_CHAT_SPACES = frozenset("\t\n\r\v\f\x85\u2028\u2029")
"""Line and tab characters a chat message may hold: each becomes one space."""


def _chat_text(value: str) -> str:
    """A chat message as the table reads it (R8.9): NFC; tabs and line breaks become spaces;
    control, format (bidi overrides), private-use, unassigned and surrogate characters are
    dropped (the zero-width joiner of emoji sequences stays); runs of spaces become one; trimmed;
    then not blank and at most :data:`CHAT_TEXT_MAX` characters.

    >>> _chat_text(" nice\\u202e hand\\n\\n\\tgg ")
    'nice hand gg'
    """
    kept = []
    for char in unicodedata.normalize("NFC", value):
        if char in _CHAT_SPACES:
            kept.append(" ")
            continue
        category = unicodedata.category(char)
        if category in ("Cc", "Cs", "Co", "Cn") or (
                category == "Cf" and char not in _FORMAT_ALLOWED):
            continue
        kept.append(char)
    text = re.sub(" {2,}", " ", "".join(kept)).strip()
    if not text:
        raise ValueError("must not be blank")
    if len(text) > CHAT_TEXT_MAX:
        raise ValueError(f"must be at most {CHAT_TEXT_MAX} characters")
    return text


ChatText = Annotated[str, Field(min_length=1, max_length=2 * CHAT_TEXT_MAX),
                     AfterValidator(_chat_text)]
"""A chat message: at most :data:`CHAT_TEXT_MAX` characters once normalised (the raw text may
be longer, up to twice that: what normalising drops or merges does not count)."""


class Request(BaseModel):
    # defer_build: a model's validator is built when it first validates, so a new container
    # builds only the model of the action it received (docs/deploy.md, "7. Cold start")
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    request_id: RequestId
    """Chosen by the client, unique per request; a replay is answered, not applied twice."""


class CreateTable(Request):
    """Create a cash or private table; the creator is its host."""

    action: Literal["create_table"]
    name: DisplayText
    variant: Literal["NLHE", "PLO", "NAIKO"] = "NLHE"
    seat_count: Annotated[StrictInt, Field(ge=2, le=10)] = 6
    small_blind: Chips
    big_blind: Chips
    min_buy_in: Chips
    max_buy_in: Chips
    decision_seconds: Annotated[StrictInt, Field(ge=5, le=120)] | None = None
    """The decision clock (R8.1); the deployment's default (20 s unless configured) if absent."""
    private: StrictBool = False
    invited: Annotated[list[PlayerId], Field(max_length=50)] = []
    bots: StrictBool = False
    min_players: Annotated[StrictInt, Field(ge=2, le=10)] | None = None
    """Players seated for the first hand: 3 at a public table; a private table's host may say
    2 or more (R7.7)."""
    deep_stack: StrictBool = False
    """A deep-stack table allows no ratholing: a player who left it and returns within 30
    minutes buys in for at least what they left with (R7.11); at other tables such a return only
    counts on the player's daily ratholing counter."""
    chat: ChatSetting = "on"
    """R8.9: the table's chat (:data:`ChatSetting`)."""
    time_bank: StrictBool = False
    """R8.7: publish the room's time bank (30 s, +5 s every 10 hands, at most 60 s): it starts
    when the decision clock runs out. Without it the clock alone decides (R8.1)."""


class ListTables(Request):
    """Public tables with a free seat, a page at a time (docs/protocol.md "Pages")."""

    action: Literal["list_tables"]
    cursor: Cursor | None = None
    """The ``next`` of the page before; absent: the first page."""
    limit: Annotated[StrictInt, Field(ge=1, le=LOBBY_PAGE_MAX)] = LOBBY_PAGE_MAX
    """Tables on this page (the default: the most a page holds)."""


InviteCode = Annotated[str, Field(min_length=6, max_length=16, pattern=r"^[A-Z0-9]+$")]
"""A private table's invite code (R7.12): capital letters and digits."""

Entry = Literal["wait", "post"]
"""R7.8: how a player who owes blinds enters: wait for the big blind, or post now."""


class JoinTable(Request):
    """Sit down with a buy-in moved from the account (R7.1); at a table already playing, wait
    for the big blind or post one now to be dealt in (R7.8)."""

    action: Literal["join_table"]
    table_id: TableId
    buy_in: Chips
    seat_index: SeatIndex | None = None
    entry: Entry = "wait"
    invite_code: InviteCode | None = None
    """A private table's current invite code: whoever brings it is invited (R7.12)."""


class LeaveTable(Request):
    """Leave the table; the stack returns to the account (after the hand if still in it)."""

    action: Literal["leave_table"]
    table_id: TableId


class SitOut(Request):
    action: Literal["sit_out"]
    table_id: TableId


class SitIn(Request):
    """Come back from sitting out; blinds missed meanwhile are posted or waited for (R7.8)."""

    action: Literal["sit_in"]
    table_id: TableId
    entry: Entry = "wait"


class ChooseEntry(Request):
    """Change between waiting for the big blind and posting now, until the next hand (R7.8)."""

    action: Literal["choose_entry"]
    table_id: TableId
    entry: Entry


class AddChips(Request):
    """Reload between hands (R7.1)."""

    action: Literal["add_chips"]
    table_id: TableId
    amount: Chips


class Snapshot(Request):
    """Watch a table (as a player or spectator) and get a full snapshot of its confirmed state
    (also how a reconnecting client catches up, R8.3). A private table shows itself only to its
    host and invited players, or to whoever brings its invite code (R7.12)."""

    action: Literal["snapshot"]
    table_id: TableId
    invite_code: InviteCode | None = None


class Unwatch(Request):
    """Stop watching a table you have no seat at: its updates stop coming to this connection
    (a connection watches at most 20 tables)."""

    action: Literal["unwatch"]
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


# -- time bank and pre-actions (R8.7, R8.8) -------------------------------------------------------

class UseTimeBank(Request):
    """R8.7: start your time bank now, on your turn (the rest of the decision clock is given
    up); it also starts by itself when the clock runs out, at tables that publish one."""

    action: Literal["use_time_bank"]
    table_id: TableId


# -- deals at the final table (R9.16) ------------------------------------------------------------

DealSplit = Literal["icm", "chip_count"]
"""R9.16: the two splits a deal offers: ICM (Malmuth–Harville) or chip count."""

OfferId = Annotated[str, Field(pattern=r"^[0-9]{1,10}\.[0-9]{1,15}$")]
"""Names a deal offer (``deal_offered``'s ``offer_id``)."""


class AskDeal(Request):
    """R9.16: ask for a deal at a tournament's final table (within the published number of
    players). When every player there has asked, play holds after the hand in progress and the
    chip-count and ICM splits are offered (``deal_offered``)."""

    action: Literal["ask_deal"]
    table_id: TableId


class AcceptDeal(Request):
    """R9.16: accept the offer ``offer_id``'s ``split``; when every player accepted the same
    split it is paid at once (``deal_made``). Until then you may accept the other one instead."""

    action: Literal["accept_deal"]
    table_id: TableId
    offer_id: OfferId
    split: DealSplit


class DeclineDeal(Request):
    """R9.16: decline the offer ``offer_id``: no deal, play resumes."""

    action: Literal["decline_deal"]
    table_id: TableId
    offer_id: OfferId


PreActionKind = Literal["check_fold", "check", "call", "call_any", "fold"]
"""R8.8: what a pre-action does when the turn comes: check, or fold when checking is not
possible; check only; call exactly ``amount``; call whatever the price; fold."""


class PreAction(Request):
    """R8.8: queue (or replace) your one pre-action for your next turn of this hand, while it
    is not your turn; ``amount`` (the chips a call puts in now, as your view shows) for
    ``call`` only. Only you see it (your view's ``pre_action``); answered ``ack``."""

    action: Literal["pre_action"]
    table_id: TableId
    kind: PreActionKind
    amount: Chips | None = None


class ClearPreAction(Request):
    """R8.8: drop your queued pre-action; answered ``ack``."""

    action: Literal["clear_pre_action"]
    table_id: TableId


# -- the room (R7.10) ----------------------------------------------------------------------------

class JoinWaitlist(Request):
    """Join a full table's waiting list; a freed seat is offered for 30 s (R7.10)."""

    action: Literal["join_waitlist"]
    table_id: TableId


class LeaveWaitlist(Request):
    """Leave a table's waiting list (R7.10)."""

    action: Literal["leave_waitlist"]
    table_id: TableId


class QuickSeat(Request):
    """A seat at a table of this game, chosen by the room (R7.10); the ack names the table."""

    action: Literal["quick_seat"]
    variant: Literal["NLHE", "PLO", "NAIKO"] = "NLHE"
    small_blind: Chips
    big_blind: Chips
    buy_in: Chips
    entry: Entry = "wait"


class Invite(Request):
    """The host invites a player by id (R7.12)."""

    action: Literal["invite"]
    table_id: TableId
    player_id: PlayerId


class Uninvite(Request):
    """The host takes a player off the private table's invited players (R7.12): they may no
    longer sit down or watch; a seat they have is kept until they leave."""

    action: Literal["uninvite"]
    table_id: TableId
    player_id: PlayerId


class CreateInviteCode(Request):
    """The host makes a new invite code (the old one stops working); answered ``invite_code``."""

    action: Literal["create_invite_code"]
    table_id: TableId


class RevokeInviteCode(Request):
    """The host revokes the invite code (R7.12)."""

    action: Literal["revoke_invite_code"]
    table_id: TableId


class FindTable(Request):
    """The private table an invite code opens; answered ``table_found``."""

    action: Literal["find_table"]
    code: InviteCode


class HostSettings(Request):
    """The host changes the blinds, the clock or the players needed to start; in effect
    between hands (R7.12, R7.7)."""

    action: Literal["host_settings"]
    table_id: TableId
    small_blind: Chips | None = None
    big_blind: Chips | None = None
    decision_seconds: Annotated[StrictInt, Field(ge=5, le=120)] | None = None
    min_players: Annotated[StrictInt, Field(ge=2, le=10)] | None = None
    chat: ChatSetting | None = None
    """R8.9: the table's chat, changed at once (even during a hand)."""


class HostAddBot(Request):
    """The host seats a BOT (tables with bots on); its chips come from the house."""

    action: Literal["host_add_bot"]
    table_id: TableId
    buy_in: Chips | None = None


class HostRemove(Request):
    """The host removes a player or a BOT; the stack goes back to its account."""

    action: Literal["host_remove"]
    table_id: TableId
    player_id: PlayerId


class HostPause(Request):
    """The host pauses (``paused: true``) or resumes the table: no new hand while paused."""

    action: Literal["host_pause"]
    table_id: TableId
    paused: StrictBool


class HostClose(Request):
    """The host closes the table: every stack goes back (when the hand in progress ends)."""

    action: Literal["host_close"]
    table_id: TableId


class GetAccount(Request):
    """Your account: balance, open tables, today's ratholing counter (R7.11)."""

    action: Literal["get_account"]


# -- tournaments (R9) ----------------------------------------------------------------------------

TournamentId = TableId
Preset = Literal["sng_6max_turbo", "sng_9max_turbo", "sng_headsup_hyper", "spin_3max_hyper",
                 "sng_6max_turbo_ko", "sng_9max_turbo_ko", "sng_headsup_hyper_ko",
                 "spin_3max_hyper_ko"]
"""The Sit & Go and Spin presets a player may list (``naiko.tournaments.structures.PRESETS``;
scheduled tournaments are ops'); ``_ko``: the knockout variant, half of the entry a bounty
(R9.13)."""


class CreateTournament(Request):
    """List a Sit & Go or a Spin from a preset; its terms are fixed now and shown to everyone
    before they register (R9.1)."""

    action: Literal["create_tournament"]
    preset: Preset
    entry: Chips
    variant: Literal["NLHE", "PLO", "NAIKO"] = "NLHE"
    name: DisplayText | None = None
    bots: StrictBool | None = None
    """Whether BOTs may fill seats; the preset's choice if absent."""


class ListTournaments(Request):
    """Tournaments registering or running, with their terms, a page at a time."""

    action: Literal["list_tournaments"]
    cursor: Cursor | None = None
    limit: Annotated[StrictInt, Field(ge=1, le=TOURNAMENTS_PAGE_MAX)] = TOURNAMENTS_PAGE_MAX
    """Tournaments on this page (a row carries the terms: a few KB)."""


class GetTournament(Request):
    """One tournament: terms, progress, its first tables, and the requester's own entry and
    place; never the whole field (its players and results are lists of their own:
    ``tournament_players``, ``tournament_results``)."""

    action: Literal["get_tournament"]
    tournament_id: TournamentId


class TournamentPlayers(Request):
    """Who registered for a tournament, in player-id order, a page at a time."""

    action: Literal["tournament_players"]
    tournament_id: TournamentId
    cursor: Cursor | None = None
    limit: PageLimit = PAGE_LIMIT_DEFAULT


class TournamentResults(Request):
    """A tournament's places and prizes so far (R9.9), in player-id order, a page at a time."""

    action: Literal["tournament_results"]
    tournament_id: TournamentId
    cursor: Cursor | None = None
    limit: PageLimit = PAGE_LIMIT_DEFAULT


class GetStandings(Request):
    """A tournament's live standings, a page at a time (docs/tournaments.md "Live
    standings"): ``section`` ``players`` (everyone's rank and stack, eliminated players after
    by place) or ``tables`` (each table's players and stacks, at most 20 tables a page); both
    with the summary (players left, average and largest stack, level and next level, prizes)."""

    action: Literal["get_standings"]
    tournament_id: TournamentId
    section: Literal["players", "tables"] = "players"
    cursor: Cursor | None = None
    limit: PageLimit = PAGE_LIMIT_DEFAULT


class Register(Request):
    """Enter: the entry moves from your account in one transaction (R9.1)."""

    action: Literal["register"]
    tournament_id: TournamentId


class Reenter(Request):
    """Enter again after being eliminated, while late registration is open and the
    tournament's ``entries_per_player`` allows: the entry moves from your account again and you
    get a new starting stack (R9.12)."""

    action: Literal["reenter"]
    tournament_id: TournamentId


class Unregister(Request):
    """Until the start, your registration goes and the entry comes back (R9.1)."""

    action: Literal["unregister"]
    tournament_id: TournamentId


class TournamentAddBots(Request):
    """The creator fills free seats with BOTs (if the terms allow bots): ``count`` of them, or
    every free seat."""

    action: Literal["tournament_add_bots"]
    tournament_id: TournamentId
    count: Annotated[StrictInt, Field(ge=1, le=10)] | None = None


class CancelTournament(Request):
    """The creator cancels a tournament that has not started: every entry goes back."""

    action: Literal["cancel_tournament"]
    tournament_id: TournamentId


# -- hand histories (R10.1) -----------------------------------------------------------------------

HandCursor = Annotated[str, Field(pattern=r"^[0-9]{13}#[A-Za-z0-9_-]{1,64}#[0-9]{10}$")]
"""Where a page of your hands continues (the ``next`` of the ``hands`` before)."""


class HandHistory(Request):
    """Your recent hands, newest first (R10.1): ``limit`` of them, older than ``before``."""

    action: Literal["hand_history"]
    limit: Annotated[StrictInt, Field(ge=1, le=50)] = 20
    before: HandCursor | None = None


class GetHand(Request):
    """One hand you were dealt in, in full, as you saw it (R10.1)."""

    action: Literal["get_hand"]
    table_id: TableId
    hand_number: Annotated[StrictInt, Field(ge=1, le=10**12)]


# -- table chat requests (R8.9) ------------------------------------------------------------------

class Chat(Request):
    """R8.9: say something to the table you watch (everyone there at once; no private
    messages). Rate-limited; refused at a table whose chat is off."""

    action: Literal["chat"]
    table_id: TableId
    text: ChatText


class SendEmote(Request):
    """R8.9: an emote (one of :data:`EMOTES`) to the table you watch, as :class:`Chat`."""

    action: Literal["emote"]
    table_id: TableId
    emote: Emote


class ChatMute(Request):
    """R8.9: stop receiving *player_id*'s chat and emotes on this connection (the muter's own
    choice: nobody else is affected, the muted player is not told)."""

    action: Literal["chat_mute"]
    player_id: PlayerId


class ChatUnmute(Request):
    """R8.9: receive *player_id*'s chat again on this connection."""

    action: Literal["chat_unmute"]
    player_id: PlayerId


# -- push notifications (issue 25, item 4) -------------------------------------------------------

DeviceToken = Annotated[str, Field(min_length=1, max_length=MAX_DEVICE_TOKEN,
                                   pattern=r"^[A-Za-z0-9_:.\-]+$")]
"""A push token as the platform gave it to the app (APNs: hex; FCM: letters, digits, ``:_-``)."""


class RegisterDevice(Request):
    """Be notified through this device while you have no live connection (your turn, a Shield
    window aimed at you, a waiting-list seat offered, a tournament you registered for starting
    in 5 minutes or moving you). Registering the same token again refreshes it; the language of
    the notifications is this connection's (``?lang=``). Answered ``ack``."""

    action: Literal["register_device"]
    platform: Literal["apns", "apns_sandbox", "fcm"]
    token: DeviceToken


class UnregisterDevice(Request):
    """Stop notifying this device (idempotent). Answered ``ack``."""

    action: Literal["unregister_device"]
    token: DeviceToken


# -- keepalive (issue 15) ------------------------------------------------------------------------

class Heartbeat(Request):
    """Keep the connection open: API Gateway closes a connection idle for 10 minutes and may
    not answer WebSocket pings. Answered ``heartbeat`` with the server's time; no table is
    read. ``request_id`` is optional here."""

    action: Literal["heartbeat"]
    request_id: RequestId | None = None  # type: ignore[assignment]


ClientRequest = (CreateTable | ListTables | JoinTable | LeaveTable | SitOut | SitIn
                 | ChooseEntry | AddChips | Snapshot | Act | UsePower | Shield | PassWindow
                 | JoinWaitlist | LeaveWaitlist | QuickSeat | GetAccount | Invite | Uninvite
                 | Unwatch | CreateInviteCode | RevokeInviteCode | FindTable | HostSettings
                 | HostAddBot | HostRemove | HostPause | HostClose | CreateTournament
                 | ListTournaments | TournamentPlayers | TournamentResults
                 | GetStandings | GetTournament | Register | Reenter | Unregister
                 | TournamentAddBots | CancelTournament
                 | HandHistory | GetHand | Heartbeat
                 | Chat | SendEmote | ChatMute | ChatUnmute  # R8.9
                 | UseTimeBank | PreAction | ClearPreAction  # R8.7, R8.8
                 | AskDeal | AcceptDeal | DeclineDeal  # R9.16
                 | RegisterDevice | UnregisterDevice)  # issue 25 item 4
"""Every request a client can send; the service dispatches on it with an exhaustive ``match``
(``mypy --strict`` proves every kind is handled)."""

AnyRequest = Annotated[ClientRequest, Field(discriminator="action")]
"""The request union, told apart by ``action`` (a pydantic discriminated union)."""

ROUTES: tuple[str, ...] = tuple(
    get_args(model.model_fields["action"].annotation)[0] for model in get_args(ClientRequest))
"""Every game route of the WebSocket API (besides ``$connect``, ``$disconnect``, ``$default``),
read off the request models themselves."""

REQUEST_MODELS: dict[str, type[ClientRequest]] = {
    get_args(model.model_fields["action"].annotation)[0]: model
    for model in get_args(ClientRequest)}
"""Each route's request model. :func:`parse_request` validates a frame with its action's model
alone (not a ``TypeAdapter`` over :data:`AnyRequest`, whose validator builds all of them, about
50 ms of a new container's first frame); the models are ``defer_build``, so only the models of
the actions a container receives are ever built."""


class ProtocolError(ValueError):
    """A frame that is not a valid request; ``code`` is stable, ``request_id`` if readable."""

    def __init__(self, code: str, message: str, request_id: str | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


def parse_request(body: str | bytes | None) -> ClientRequest:
    """Parse one client frame into its request model.

    Whatever a frame holds, the answer is this model or one :class:`ProtocolError` with a
    stable code: the frame's size, its nesting (:data:`MAX_NESTING`, checked before parsing)
    and its text (valid Unicode only: a lone surrogate such as ``"\\ud800"`` could be neither
    echoed nor logged) are bounded before anything reads it.

    :raises ProtocolError: ``frame_too_large``, ``malformed_json``, ``unknown_action`` or
        ``invalid_request`` (with pydantic's explanation of the first problems).
    """
    if body is None:
        raise ProtocolError("malformed_json", "empty message")
    try:
        raw = body.encode() if isinstance(body, str) else bytes(body)
    except UnicodeEncodeError:
        raise ProtocolError("malformed_json", "the message is not valid UTF-8") from None
    if len(raw) > MAX_FRAME_BYTES:
        raise ProtocolError("frame_too_large",
                            f"a frame is at most {MAX_FRAME_BYTES} bytes, got {len(raw)}")
    if _too_deep(raw):
        raise ProtocolError("malformed_json",
                            f"the message nests deeper than {MAX_NESTING} levels")
    try:
        text = raw.decode("utf-8")  # strictly UTF-8: no UTF-16/32 guessing, no byte-order mark
    except UnicodeDecodeError:
        raise ProtocolError("malformed_json", "the message is not valid UTF-8") from None
    if text.startswith("\ufeff"):
        raise ProtocolError("malformed_json", "the message starts with a byte-order mark")
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError("malformed_json",
                            f"the message is not valid JSON: {type(exc).__name__}") from None
    if not isinstance(data, dict):
        raise ProtocolError("malformed_json", "the message must be a JSON object")
    if not _valid_text(data):
        raise ProtocolError("malformed_json", "the message holds text that is not valid "
                            "Unicode (a lone surrogate)")
    request_id = data.get("request_id")
    request_id = request_id if isinstance(request_id, str) and _ID.fullmatch(request_id) \
        else None
    action = data.get("action")
    if action not in ROUTES:
        shown = repr(action)[:40]
        raise ProtocolError("unknown_action", f"unknown action {shown}; expected one of "
                            f"{', '.join(ROUTES)}", request_id)
    try:
        return REQUEST_MODELS[action].model_validate(data)
    except ValueError as exc:
        errors: list[dict[str, Any]] = getattr(exc, "errors", lambda: [])()
        detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}"
                           for e in errors[:3]) or type(exc).__name__
        raise ProtocolError("invalid_request", f"invalid {action}: {detail}",
                            request_id) from exc


MAX_NESTING = 16
"""Deepest nesting of arrays and objects a frame may have (our requests need 2); checked on the
raw bytes before parsing, so no frame can exhaust the parser's recursion."""

_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
"""A request id that may be echoed in an error frame (the same rule as :data:`RequestId`)."""


def _no_constant(name: str) -> Any:
    """JSON has no ``NaN`` or ``Infinity`` (Python's parser accepts them by default)."""
    raise ValueError(f"{name} is not JSON")


def _too_deep(raw: bytes) -> bool:
    """Whether *raw* nests arrays/objects deeper than :data:`MAX_NESTING` (outside strings).

    >>> _too_deep(b'[' * 17 + b']' * 17), _too_deep(b'{"a": "[[[[[[[[[[[[[[[[[["}')
    (True, False)
    """
    if raw.count(b"[") + raw.count(b"{") <= MAX_NESTING:
        return False  # the usual frame: too few brackets to matter
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > MAX_NESTING:
                return True
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return False


def _valid_text(value: Any) -> bool:
    """Whether every string (keys too) of a parsed frame is valid Unicode (encodable as UTF-8:
    no lone surrogates from ``\\ud800`` escapes)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return False
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True


# -- server -> client ------------------------------------------------------------------------

class Message(BaseModel):
    # the service sends dicts: these models only describe them (json_schemas), built when asked
    model_config = ConfigDict(extra="forbid", defer_build=True)


class Ack(Message):
    """The request was applied at ``version`` (or had been: ``replayed``). A change to a
    table the requester's connection watches is answered by its :class:`Update` instead
    (carrying the ``request_id``); an ``ack`` answers the rest: a write nobody is told of, a
    requester not watching the table, a new table, a tournament request, and every replay."""

    type: Literal["ack"]
    request_id: str
    table_id: str | None = None
    tournament_id: str | None = None
    version: int | None = None
    replayed: bool = False


ErrorCode = Literal[
    "account_frozen", "all_in_not_allowed", "already_acted", "already_anchored",
    "already_asked", "already_registered", "already_seated", "already_used", "amount_above_maximum",
    "amount_below_minimum", "bad_amount", "bad_buy_in", "bad_cursor", "bad_invite_code",
    "bet_not_allowed", "bot_seat", "bots_off", "busy", "button_required", "cannot_check",
    "cannot_pay", "chat_off", "deal_changed", "deal_made", "deal_offered", "deals_off",
    "engine_error", "frame_too_large", "hand_in_progress",
    "illegal_action", "in_hand", "insufficient_funds", "internal_error", "invalid_bounty",
    "invalid_card", "invalid_prizes", "invalid_request", "invalid_target", "invalid_terms",
    "malformed_command", "malformed_json", "no_deal_offer",
    "no_entries_left", "no_hand_in_progress", "no_histories", "no_open_window",
    "no_pre_action", "no_time_bank", "no_tournaments", "not_connected", "not_eliminated",
    "not_enough_players", "not_final_table", "not_host", "not_in_carousel",
    "not_in_hand", "not_invited", "not_private", "not_registered", "not_seated", "not_waiting",
    "not_watching",
    "not_your_turn", "nothing_owed", "nothing_to_call", "one_power_per_turn", "power_rejected",
    "powers_not_available", "price_changed", "push_unavailable", "raise_not_allowed",
    "rate_limited", "reentry_off", "registration_closed", "registration_not_open",
    "reply_too_large", "seat_available", "seat_taken", "seated", "seating_error",
    "stale_cursor", "table_closed",
    "table_error", "table_full", "table_limit_reached", "time_bank_empty", "time_bank_running",
    "too_many_invites", "too_many_mutes", "too_many_players",
    "too_many_registrations", "too_many_spectators", "too_many_tables", "too_many_tables_watched",
    "too_many_tournaments", "too_many_waitlists", "tournament_full", "tournament_table",
    "unknown_action", "unknown_hand", "unknown_preset", "unknown_seat", "unknown_stakes",
    "unknown_table", "unknown_tournament", "waiting", "waitlist_full", "window_closed",
    "wrong_street", "your_turn"
]
"""Every ``code`` an ``error`` message may carry: the frame's (:func:`parse_request`), the
message handler's (``functions/game/app.py``), the service's (``ServiceError``) and the
engine's (``EngineError`` and its subclasses). ``docs/protocol.md`` explains each one and the
published schemas enumerate them; ``tests/unit/test_protocol.py`` finds every code the code can
send (an AST scan) and compares the three both ways."""

ERROR_CODES: tuple[str, ...] = get_args(ErrorCode)
"""The codes of :data:`ErrorCode`, in order."""


class Error(Message):
    """The request was refused; nothing changed."""

    type: Literal["error"]
    request_id: str | None
    code: ErrorCode
    """Stable: switch on it (docs/protocol.md, "Error codes")."""
    message: str
    retry_after_ms: int | None = None
    """``rate_limited`` only: when the frame would be accepted again."""


class SnapshotMessage(Message):
    """The whole table as this connection may see it (its own seat's view)."""

    type: Literal["snapshot"]
    table_id: str
    version: int
    view: dict[str, Any]
    request_id: str | None = None


class CardProof(Message):
    """R10.2: the proof that ``card`` was at ``position`` of the hand's committed deck (the
    ``commitment`` of the hand's view): the position's salt and the audit path, sibling hashes
    from the leaf up (``docs/fairness.md``; check with :func:`naiko.commitment.verify`)."""

    position: int = Field(ge=0, le=51)
    card: str
    card_id: int = Field(ge=0, le=51)
    salt: str = Field(pattern="^[0-9a-f]{64}$")
    path: list[str] = Field(max_length=6)


class Update(Message):
    """What changed (events visible to this connection) and the resulting view. ``version``
    increases by exactly one per table write: a client that sees a gap asks for a snapshot.
    ``proofs``: one per card the events show this connection (R10.2), absent when none.
    The update sent to the connection whose request made the write carries that
    ``request_id`` (and ``replayed: false``): it is the request's answer, no ``ack`` comes."""

    type: Literal["update"]
    table_id: str
    version: int
    events: list[dict[str, Any]]
    view: dict[str, Any]
    request_id: str | None = None
    replayed: bool = False
    proofs: list[CardProof] | None = None


class Tables(Message):
    """The lobby: public tables with a free seat, tables with players first (then the newest),
    and the stakes quick seat serves (R7.10)."""

    type: Literal["tables"]
    request_id: str
    tables: list[dict[str, Any]]
    quick_seat_stakes: list[dict[str, Any]] = []
    next: str | None = None
    """The cursor of the next page (``list_tables`` with ``cursor``); ``null``: the last."""


class AccountMessage(Message):
    """Your account (``get_account``): balance, tables you opened that are open, and today's
    ratholing counter (R7.11; it resets at 00:00 UTC, ``day``)."""

    type: Literal["account"]
    request_id: str
    balance: int
    open_tables: int
    ratholes_today: int
    day: str


class InviteCodeMessage(Message):
    """The private table's new invite code (``create_invite_code``, after its ``ack``)."""

    type: Literal["invite_code"]
    request_id: str
    table_id: str
    code: str


class TableFound(Message):
    """The private table an invite code opens (``find_table``)."""

    type: Literal["table_found"]
    request_id: str
    table_id: str


class TournamentsMessage(Message):
    """Tournaments registering or running (``list_tournaments``): each one's summary."""

    type: Literal["tournaments"]
    request_id: str
    tournaments: list[dict[str, Any]]
    next: str | None = None
    """The cursor of the next page; ``null``: the last."""


class TournamentMessage(Message):
    """One tournament (``get_tournament``): its summary, ``table_count`` and the first
    ``tables``, and ``you`` (``registered``; ``result``: your place and prize, or ``null``).
    Its players and results are pages of their own (:class:`TournamentPlayersMessage`,
    :class:`TournamentResultsMessage`)."""

    type: Literal["tournament"]
    request_id: str
    tournament: dict[str, Any]


class TournamentPlayersMessage(Message):
    """A page of a tournament's registered players (``tournament_players``): ``player_id`` and
    ``bot`` each, in player-id order; ``next`` continues, ``null`` at the end."""

    type: Literal["tournament_players"]
    request_id: str
    tournament_id: str
    players: list[dict[str, Any]]
    next: str | None


class TournamentResultsMessage(Message):
    """A page of a tournament's results (``tournament_results``): ``player_id``, ``place``,
    ``prize``, ``paid`` and how the place was decided, in player-id order (sort a page by
    ``place``); ``next`` continues, ``null`` at the end."""

    type: Literal["tournament_results"]
    request_id: str
    tournament_id: str
    results: list[dict[str, Any]]
    next: str | None


class StandingsMessage(Message):
    """A page of a tournament's standings (``get_standings``): ``summary`` (``players_left``,
    ``average_stack``, ``largest_stack``, ``table_count``, ``level`` with ``next_level``,
    ``prize_pool``, ``paid_places``, the first ``prizes``), ``as_of_ms`` (when the ranking was
    built; ``null`` on a page of an older ranking than the summary's) and either ``players``
    (``rank``, ``player_id``, ``stack``, ``table_id``, ``place``, ``prize``) or ``tables``
    (``table_id``, ``number``, ``at_ms``, ``players``: ``player_id``, ``stack``, ``seat``);
    ``next`` continues, ``null`` at the end."""

    type: Literal["standings"]
    request_id: str
    tournament_id: str
    section: Literal["players", "tables"]
    summary: dict[str, Any]
    as_of_ms: int | None
    players: list[dict[str, Any]] | None = None
    tables: list[dict[str, Any]] | None = None
    next: str | None


class HandsMessage(Message):
    """Your recent hands (``hand_history``), newest first; ``next`` continues the list
    (``before``), ``null`` at its end."""

    type: Literal["hands"]
    request_id: str
    hands: list[dict[str, Any]]
    next: str | None


class HandMessage(Message):
    """One hand as you saw it (``get_hand``)."""

    type: Literal["hand"]
    request_id: str
    hand: dict[str, Any]


class HeartbeatMessage(Message):
    """The answer to ``heartbeat``: the server's clock (epoch milliseconds)."""

    type: Literal["heartbeat"]
    request_id: str | None = None
    server_time_ms: int


# -- table chat messages (R8.9) ------------------------------------------------------------------

class ChatMessage(Message):
    """R8.9: a chat message or an emote said at a table this connection watches (the
    speaker's own connection gets it too, with the ``request_id``: the answer to the request).
    The server adds only who said it: ``player_id``, and ``seat_index`` (``null``: a
    spectator); ``text`` or ``emote`` is the speaker's own."""

    type: Literal["chat"]
    table_id: str
    player_id: str
    seat_index: int | None
    text: str | None = None
    emote: Emote | None = None
    at_ms: int
    request_id: str | None = None


AnyMessage = Annotated[Ack | Error | SnapshotMessage | Update | Tables | AccountMessage
                       | InviteCodeMessage | TableFound | TournamentsMessage
                       | TournamentMessage | TournamentPlayersMessage
                       | TournamentResultsMessage | StandingsMessage | HandsMessage
                       | HandMessage | HeartbeatMessage | ChatMessage,
                       Field(discriminator="type")]


def json_schemas() -> dict[str, Any]:
    """JSON Schemas of every request and message, generated from the models."""
    return {
        "requests": TypeAdapter(AnyRequest).json_schema(),
        "messages": TypeAdapter(AnyMessage).json_schema(),
    }


def error_message(code: str, message: str, request_id: str | None,
                  retry_after_ms: int | None = None, *, lang: str | None = None,
                  **params: Any) -> dict[str, Any]:
    """An ``error`` frame; *retry_after_ms* only for ``rate_limited``. *message* is the English
    text; a connection that chose another language (*lang*, default the one being spoken,
    :func:`naiko_service.i18n.speaking`) gets the catalogue's ``error.<code>`` in it, formatted
    with *params* (the code's named parameters, docs/protocol.md "Languages")."""
    from naiko_service.i18n import error_text

    if code == "frame_too_large":
        params.setdefault("limit", MAX_FRAME_BYTES)
    if retry_after_ms is not None:
        params.setdefault("retry_after_ms", retry_after_ms)
    error: dict[str, Any] = {"type": "error", "request_id": request_id, "code": code,
                             "message": error_text(code, message, lang, **params)}
    if retry_after_ms is not None:
        error["retry_after_ms"] = retry_after_ms
    return error


def heartbeat_message(request_id: str | None, server_time_ms: int) -> dict[str, Any]:
    """The ``heartbeat`` answer."""
    return {"type": "heartbeat", "request_id": request_id, "server_time_ms": server_time_ms}
