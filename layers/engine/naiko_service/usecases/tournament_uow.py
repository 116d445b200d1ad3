""":mod:`naiko_service.usecases.tournament_uow` is the one unit of work over a tournament item,
what :func:`.transaction.mutate` is to a table: read it, answer a request already applied from its
``recent_requests`` instead of applying it again, let the change edit a private copy (its
version one more), then write the copy on condition that the version read is still the stored
one, alone or in one transaction with the other items and account moves the change asks for
(:meth:`~naiko_service.ports.TournamentStore.commit`). A conflict reads again after a short
random pause (:func:`.base.backoff`), at most :data:`MAX_ATTEMPTS` times; then :class:`Busy`.

A change is a function ``change(new, now, plan) -> result``: it edits *new* (this attempt's
copy), appends what else to write to *plan*, and returns what the caller needs afterwards; it
raises a :class:`~.base.ServiceError` to refuse (nothing written), :class:`Unchanged` when
there is nothing to write, and :class:`~naiko_service.ports.ConcurrentUpdate` when what it
read besides the tournament item is already out of date (the attempt starts again)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from ..ports import (
    AccountMove,
    ConcurrentUpdate,
    PutTournament,
    TournamentNotFound,
    TournamentStore,
    Write,
)
from ..tournament_records import TournamentRecord
from . import standing_rows
from .base import Deps, ServiceError, backoff

T = TypeVar("T")

MAX_ATTEMPTS = 4
"""Attempts of a tournament transaction before giving up (:class:`Busy`; a timer's own
execution, the sweep or the client tries again)."""


class Busy(ServiceError):
    """Every attempt met a conflict: nothing was written (``busy``, as a table's)."""

    def __init__(self) -> None:
        super().__init__("busy", "the tournament is busy; please retry")


class Unchanged(Exception):  # noqa: N818 -- a result, like NoOp, not an error
    """Raised by a change that found nothing to write: :func:`transact` writes nothing and
    returns ``value`` as the result."""

    def __init__(self, value: object = None):
        super().__init__()
        self.value = value


@dataclass
class Plan:
    """What one attempt writes besides the tournament item (in the same transaction)."""

    writes: list[Write] = field(default_factory=list)
    moves: list[AccountMove] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Done(Generic[T]):
    """How a :func:`transact` ended."""

    record: TournamentRecord
    """As written; as read when nothing was (a replay, :class:`Unchanged`)."""
    result: T | None
    """What the change returned (or :attr:`Unchanged.value`); ``None`` for a replay."""
    written: bool
    replayed: int | None = None
    """A request applied before: the version that applied it (nothing was written now)."""


Change = Callable[[TournamentRecord, int, Plan], T]


def load(tournaments: TournamentStore, tournament_id: str, *,
         refuse_unknown: bool = False) -> TournamentRecord:
    """Read the tournament item.

    :raises ServiceError: ``unknown_tournament`` if *refuse_unknown* (a player's request).
    :raises TournamentNotFound: Otherwise.
    """
    try:
        return tournaments.load(tournament_id)
    except TournamentNotFound:
        if not refuse_unknown:
            raise
        raise ServiceError("unknown_tournament", "no tournament has that id") from None


def transact(deps: Deps, tournament_id: str, change: Change[T], *,
             request_key: str | None = None, refuse_unknown: bool = False,
             settled: Callable[[], bool] | None = None) -> Done[T]:
    """Apply *change* to the tournament (see the module docstring) and say how it ended.

    :param request_key: ``<player>/<request id>`` of the request being applied: remembered in
        the item it writes, and a request found remembered there is not applied again
        (:attr:`Done.replayed`).
    :param refuse_unknown: A tournament that does not exist is the refusal
        ``unknown_tournament`` (a player's request), not :class:`TournamentNotFound`.
    :param settled: Asked after a conflict: whether another invocation made this very change
        meanwhile (a prize paid, an entry refunded); then nothing more is tried.
    :raises Busy: After :data:`MAX_ATTEMPTS` conflicts (nothing written).
    :raises ServiceError: The change's refusal (nothing written).
    :raises InsufficientFunds, TooManyRegistrations, TooManyTournaments: From the commit, for
        the caller to answer (nothing written).
    """
    tournaments = store(deps)
    for attempt in range(MAX_ATTEMPTS):
        if attempt:
            backoff(deps, attempt)
        record = load(tournaments, tournament_id, refuse_unknown=refuse_unknown)
        if request_key is not None and request_key in record.recent_requests:
            deps.count("Replays", 1)
            return Done(record, None, False, record.recent_requests[request_key])
        now = deps.clock.now_ms()
        new = record.copy()
        new.version = record.version + 1
        plan = Plan()
        try:
            result = change(new, now, plan)
        except Unchanged as unchanged:
            return Done(record, unchanged.value, False)  # type: ignore[arg-type]
        except ConcurrentUpdate:
            deps.count("Conflicts", 1)
            continue
        if request_key is not None:
            new.remember_request(request_key)
        try:
            tournaments.commit(standing_rows.attach(
                (PutTournament(new, record.version), *plan.writes), now,
                max_tables=standing_rows.ATTACH_MAX_TABLES), tuple(plan.moves))
        except ConcurrentUpdate:
            deps.count("Conflicts", 1)
            if settled is not None and settled():
                return Done(record, None, False)
            continue
        return Done(new, result, True)
    raise Busy()


def store(deps: Deps) -> TournamentStore:
    """The deployment's tournaments.

    :raises ServiceError: ``no_tournaments`` in a deployment without them.
    """
    if deps.tournaments is None:
        raise ServiceError("no_tournaments", "this deployment runs no tournaments")
    return deps.tournaments
