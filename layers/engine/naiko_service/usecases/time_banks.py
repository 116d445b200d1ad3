""":mod:`naiko_service.usecases.time_banks` is R8.7, the time bank: a table that publishes one
(:attr:`~naiko_service.records.TableSettings.time_bank`) gives every player a bank of seconds
besides the decision clock. When the clock runs out the bank starts by itself (a
``time_bank`` timer, on the same wake-up transport as the clock: docs/timers.md), or at once on
request (``use_time_bank``); it is spent second by second (its start is stored and the seconds
begun are charged when the turn ends), and only when it is empty does R8.1 decide. Each bank is
topped up every N hands (cash) or levels (a tournament) up to the cap, and a tournament move
takes it along (:func:`carry`). The request is :func:`.play.use_time_bank`."""

from __future__ import annotations

from naiko.time_bank import TimeBank, TopUpEvery

from ..records import TableRecord, Timer, TimerKind


def bank_ms(record: TableRecord, player_id: str) -> int | None:
    """What is left of *player_id*'s bank (ms); ``None`` when the table publishes none. A
    player the table has not dealt to yet has the published initial bank."""
    bank = record.settings.time_bank
    if bank is None:
        return None
    entry = record.banks.get(player_id)
    return bank.initial_ms if entry is None else entry[0]


def _progress(record: TableRecord, bank: TimeBank) -> int:
    """Where the top-up period counts from now: the hand dealt (cash) or the level of the hand
    (a tournament, R9.3)."""
    if bank.per is TopUpEvery.LEVELS and record.tournament is not None:
        return max(1, record.tournament.announced_level)
    hand = record.state.hand
    return hand.number if hand is not None else record.state.hand_count


def top_up(record: TableRecord) -> None:
    """At every deal: every seated player's bank gets the top-ups due since the hand or level
    it was last topped up at (a newcomer starts with the initial bank, counted from now); the
    banks of players no longer seated go."""
    bank = record.settings.time_bank
    if bank is None:
        return
    progress = _progress(record, bank)
    seated = {s.player_id for s in record.state.seats if s is not None}
    for player in list(record.banks):
        if player not in seated:
            del record.banks[player]
    for player in seated:
        entry = record.banks.get(player)
        if entry is None:
            record.banks[player] = [bank.initial_ms, progress]
        else:
            record.banks[player] = list(bank.topped_up(entry[0], entry[1], progress))


def start(record: TableRecord, now: int, seat_index: int, player_id: str,
          turn: str) -> Timer | None:
    """Start *player_id*'s bank now, for the turn named *turn*: its ``time_bank`` timer, due
    when the bank is empty; ``None`` when there is no bank or nothing left of it."""
    left = bank_ms(record, player_id)
    if not left:
        return None
    bank = record.settings.time_bank
    assert bank is not None
    record.banks.setdefault(player_id, [left, _progress(record, bank)])
    record.bank_since[player_id] = now
    return Timer(f"time_bank:{turn}", TimerKind.TIME_BANK, now + left, seat_index)


def emptied(record: TableRecord, player_id: str) -> None:
    """The bank's timer fired: the whole bank is spent."""
    record.bank_since.pop(player_id, None)
    entry = record.banks.get(player_id)
    if entry is not None:
        entry[0] = 0


def settle(record: TableRecord, now: int, timers: list[Timer]) -> None:
    """Charge every bank that was running and whose timer is no longer among *timers* (the
    turn ended: the player acted, folded by leaving, the hand was cancelled): the seconds
    begun since it started, second by second."""
    running = {t.seat_index for t in timers if t.kind is TimerKind.TIME_BANK}
    for player, since in list(record.bank_since.items()):
        seat_index = record.seat_of(player)
        if seat_index is not None and seat_index in running:
            continue
        del record.bank_since[player]
        entry = record.banks.get(player)
        if entry is not None:
            entry[0] = TimeBank.spent(entry[0], now - since)


def carry(source: TableRecord, destination: TableRecord, player_id: str) -> None:
    """A tournament move (R9.7): the player's bank goes with them (never a new one)."""
    entry = source.banks.pop(player_id, None)
    source.bank_since.pop(player_id, None)
    if entry is not None:
        destination.banks[player_id] = list(entry)
