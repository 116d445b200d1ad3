"""The tournament unit of work (:func:`naiko_service.usecases.tournament_uow.transact`, issue 22
item 3): one read-copy-change-commit over the tournament item, replayed by request id, retried
with a pause on a conflict, ``busy`` when every attempt met one, and nothing written when the
change refuses."""

from __future__ import annotations

from typing import Any

import pytest
from naiko_service.ports import ConcurrentUpdate, PutItem, TournamentNotFound
from naiko_service.tournament_records import TournamentRecord
from naiko_service.usecases.base import ServiceError
from naiko_service.usecases.tournament_uow import (
    MAX_ATTEMPTS,
    Busy,
    Plan,
    Unchanged,
    transact,
)
from service_testing import Harness, harness
from test_tournaments import new_tournament, register, sng_terms


def setup() -> tuple[Harness, str, list[float]]:
    h = harness()
    tid = new_tournament(h, sng_terms(6, entry=100))
    pauses: list[float] = []
    h.service.deps.pause = pauses.append
    return h, tid, pauses


def stored(h: Harness, tid: str) -> TournamentRecord:
    assert h.tournaments is not None
    return h.tournaments.load(tid)


def always_conflicting(h: Harness) -> list[int]:
    """Every commit fails on its condition (another writer always wins); returns the count."""
    assert h.tournaments is not None
    commits: list[int] = []

    def commit(*args: Any, **kwargs: Any) -> None:
        commits.append(1)
        raise ConcurrentUpdate("t1")

    h.tournaments.commit = commit  # type: ignore[method-assign]
    return commits


def renamed(new: TournamentRecord, now: int, plan: Plan) -> str:
    new.name = "renamed"
    plan.writes.append(PutItem(new.tournament_id, "note#1", {"at_ms": now}, new=True))
    return "done"


def test_a_change_is_written_with_its_items_on_the_version_read() -> None:
    h, tid, pauses = setup()
    before = stored(h, tid)
    done = transact(h.service.deps, tid, renamed)
    after = stored(h, tid)
    assert done.written and done.result == "done" and done.replayed is None
    assert after.version == before.version + 1 == done.record.version
    assert after.name == "renamed"
    assert h.tournaments is not None and dict(h.tournaments.items(tid, "note#"))
    assert pauses == []


def test_a_request_already_applied_is_answered_with_its_version_not_applied_again() -> None:
    h, tid, _ = setup()
    calls: list[int] = []

    def once(new: TournamentRecord, now: int, plan: Plan) -> None:
        calls.append(1)
        new.entrants += 1

    first = transact(h.service.deps, tid, once, request_key="ann/r1")
    again = transact(h.service.deps, tid, once, request_key="ann/r1")
    assert first.written and not again.written
    assert again.replayed == first.record.version
    assert calls == [1] and stored(h, tid).entrants == 1
    assert stored(h, tid).version == first.record.version
    assert h.counters["Replays"] == 1


def test_a_conflict_reads_again_after_a_pause_and_the_retry_is_written() -> None:
    h, tid, pauses = setup()
    deps = h.service.deps
    attempts: list[int] = []

    def racing(new: TournamentRecord, now: int, plan: Plan) -> None:
        attempts.append(new.version)
        if len(attempts) == 1:  # another writer commits between this read and this commit
            transact(deps, tid, renamed)
        new.entrants += 1

    start = stored(h, tid).version
    done = transact(deps, tid, racing)
    after = stored(h, tid)
    assert done.written
    assert attempts == [start + 1, start + 2]  # the second attempt read the other write
    assert after.version == start + 2 and after.entrants == 1 and after.name == "renamed"
    assert h.counters["Conflicts"] == 1
    assert len(pauses) == 1 and 0 < pauses[0] <= 0.010


def test_every_attempt_conflicting_answers_busy_and_writes_nothing() -> None:
    h, tid, pauses = setup()
    before = stored(h, tid).to_document()
    commits = always_conflicting(h)
    with pytest.raises(Busy) as refused:
        transact(h.service.deps, tid, renamed)
    assert refused.value.code == "busy"
    assert len(commits) == MAX_ATTEMPTS and len(pauses) == MAX_ATTEMPTS - 1
    assert h.counters["Conflicts"] == MAX_ATTEMPTS
    assert stored(h, tid).to_document() == before


def test_a_player_request_that_keeps_conflicting_is_answered_busy() -> None:
    h, tid, _ = setup()
    ann = h.player("ann")
    register(tid, ann)
    always_conflicting(h)
    reply = ann.send(action="unregister", tournament_id=tid)
    assert reply["type"] == "error" and reply["code"] == "busy", reply
    assert stored(h, tid).entrants == 1 and h.accounts.balance("ann") == 9_900


def test_a_change_that_refuses_writes_nothing() -> None:
    h, tid, _ = setup()
    before = stored(h, tid).to_document()

    def refusing(new: TournamentRecord, now: int, plan: Plan) -> None:
        new.entrants += 5
        plan.writes.append(PutItem(tid, "note#1", {}, new=True))
        raise ServiceError("tournament_full", "every seat is taken")

    with pytest.raises(ServiceError) as refused:
        transact(h.service.deps, tid, refusing)
    assert refused.value.code == "tournament_full"
    assert stored(h, tid).to_document() == before
    assert h.tournaments is not None and not h.tournaments.items(tid, "note#")


def test_a_change_with_nothing_to_do_writes_nothing_and_returns_its_value() -> None:
    h, tid, _ = setup()
    before = stored(h, tid)

    def idle(new: TournamentRecord, now: int, plan: Plan) -> None:
        new.entrants += 1
        raise Unchanged(0)

    done = transact(h.service.deps, tid, idle)
    assert not done.written and done.result == 0 and done.record.version == before.version
    assert stored(h, tid).to_document() == before.to_document()


def test_a_conflict_settled_by_another_invocation_stops_without_retrying() -> None:
    h, tid, pauses = setup()
    commits = always_conflicting(h)
    done = transact(h.service.deps, tid, renamed, settled=lambda: True)
    assert not done.written and len(commits) == 1 and pauses == []


def test_an_unknown_tournament_is_a_refusal_only_for_a_players_request() -> None:
    h, _, _ = setup()
    with pytest.raises(TournamentNotFound):
        transact(h.service.deps, "nope", renamed)
    with pytest.raises(ServiceError) as refused:
        transact(h.service.deps, "nope", renamed, refuse_unknown=True)
    assert refused.value.code == "unknown_tournament"
