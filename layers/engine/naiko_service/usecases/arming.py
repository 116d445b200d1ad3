""":mod:`naiko_service.usecases.arming` keeps a table's ONE wake-up armed for its earliest
deadline (:func:`arm`), before the write that makes it current (``docs/timers.md``)."""

from __future__ import annotations

from ..records import TableRecord, Timer, TimerKind
from .base import Deps

SWEEP_ONLY = frozenset({TimerKind.IDLE_CLOSE})
"""Timers no execution is started for: their time is coarse (closing an empty table), so the
sweep, which finds them on ``due-index`` within a minute, fires them."""


WAKE_PREFIX = "wake:"
"""The token of a table's wake-up marker is this prefix + the token its execution carries."""


WAKE_LATE_MS = 10_000
"""An armed wake-up this far past its time is presumed lost (a table write re-arms, and the
sweep, which sees the marker's deadline on ``due-index``, takes over); until then it may still
be on its way (a Lambda retry), and arming another would only add a no-op."""


Armed = dict[str, Timer]
"""The wake-ups one write armed, by table id, across its attempts
(:func:`.transaction.mutate`): an attempt that lost a race started its execution already."""


def arm(deps: Deps, table_id: str, record: TableRecord, now: int,
        armed: Armed | None = None) -> None:
    """Keep ONE wake-up armed per table, for its earliest deadline.

    A Step Functions execution is started only when no armed wake-up fires by the earliest
    deadline: when that deadline moved EARLIER than the armed one (the pause after a hand,
    a Shield window), when the armed one was consumed (it fired) or presumed lost. A turn
    that ends early moves the deadline later: nothing is started, the armed wake-up fires
    at its time, finds nothing due, and re-arms for the deadline of the moment. The armed
    wake-up is remembered as a :attr:`TimerKind.WAKE` marker in ``record.timers``, so its
    deadline is also on ``due-index`` for the sweep. The execution carries the earliest
    timer's own token and kind (a pending token always acts, so even a superseded execution
    that fires is either useful or a no-op).

    *armed*: the wake-ups earlier attempts of the same write started (a write retried after a
    conflict): one that fires by the earliest deadline is the armed one, as the stored marker
    would be, so a retried write arms once (a second execution for the same timer would only
    fire as a duplicate, :func:`.timers._wake`); a new one is remembered there."""
    real = [t for t in record.timers if t.kind is not TimerKind.WAKE]
    wake = next((t for t in record.timers if t.kind is TimerKind.WAKE), None)
    earliest = min((t for t in real if t.kind not in SWEEP_ONLY),
                   key=lambda t: (t.due_ms, t.token), default=None)
    if earliest is None:
        record.timers = real  # nothing to wait for: an armed wake-up will be a no-op
        return
    for marker in (wake, None if armed is None else armed.get(table_id)):
        if marker is not None and now - WAKE_LATE_MS <= marker.due_ms <= earliest.due_ms:
            record.timers = [*real, marker]
            return
    deps.scheduler.schedule(table_id, earliest.token, earliest.due_ms, earliest.kind)
    deps.count("WakeupsArmed", 1)
    marker = Timer(WAKE_PREFIX + earliest.token, TimerKind.WAKE, earliest.due_ms)
    if armed is not None:
        armed[table_id] = marker
    record.timers = [*real, marker]
