"""Issue 23 item 1 through the service: a scheduled tournament's players out before the serial
zone are counted on their table group's count shard (``field#<g>``), not on the field item, and
get no place at that moment (R9.5: no count of the field exists then); the shards close before
the bubble (R9.8) and the money (R9.9), so hand-for-hand starts and the prizes are given on the
field item's exact count; then every player the shards counted gets their ``result#`` item, the
place derived from the ``out#`` items in time order, never a prize, and the ``finished`` entry's
places are those."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from naiko.state import Variant
from naiko_local.tournament import Simulation, terms_for
from naiko_service.ports import CloseOuts, CountOuts, PutItem, PutTournament
from naiko_service.usecases import field_shards, tournaments
from naiko_service.usecases.tournament_log import joined

SEATING_ENTRIES = {"moved", "move_planned", "move_cancelled", "table_broken", "final_table",
                   "hand_for_hand"}


def run(players: int = 24, seats: int = 3, seed: int = 5) -> tuple[Simulation, list[Any],
                                                                     list[tuple[Any, ...]]]:
    terms = replace(terms_for("mtt", Variant.NLHE, 10, players), seat_count=seats)
    simulation = Simulation(terms, players, seed, check=True)
    commits: list[tuple[Any, ...]] = []
    real = simulation.tournaments.commit

    def commit(writes: tuple[Any, ...], moves: tuple[Any, ...] = ()) -> None:
        real(writes, moves)
        commits.append(tuple(writes))
        record = simulation.tournaments.load(simulation.tournament_id)
        if record.seating is not None and record.payouts and not record.serial:
            # the shards never count the field below the serial zone (R9.8, R9.9)
            assert record.players_left >= field_shards.serial_zone(record), record.shards

    simulation.tournaments.commit = commit  # type: ignore[method-assign]
    return simulation, simulation.run(), commits


def test_r9_5_r9_8_r9_9_issue_23_players_out_before_the_serial_zone_count_on_shards() -> None:
    simulation, log, commits = run()
    tid = simulation.tournament_id
    record = simulation.tournaments.load(tid)
    eliminated = [e for e in log if e["type"] == "eliminated"]
    sharded = [e for e in eliminated if e["place"] is None]
    assert len(sharded) >= 10
    # told no place: all of them before the first player told one (the serial zone)
    first_placed = next(i for i, e in enumerate(eliminated) if e["place"] is not None)
    assert all(e["place"] is None for e in eliminated[:first_placed])
    assert all(e["place"] is not None for e in eliminated[first_placed:])
    # each counted on its shard; such a write writes the field item only to grant the shard
    # room (a small field's shards get a little at a time) or for a change of the seating
    counted = [c for c in commits if any(isinstance(w, CountOuts) for w in c)]
    assert sum(w.outs for c in counted for w in c if isinstance(w, CountOuts)) == len(sharded)
    alone = [c for c in counted if not any(isinstance(w, PutTournament) for w in c)]
    assert alone
    for c in counted:
        if any(isinstance(w, PutTournament) for w in c):
            grant = sum(w.grant for w in c if isinstance(w, CountOuts))
            seating = {w.data["type"] for w in c if isinstance(w, PutItem)
                       and w.key.startswith("log#") and "#t#" in w.key} & SEATING_ENTRIES
            assert grant or seating, c
    shards = simulation.tournaments.items(tid, "field#")
    assert shards and all(d["closed"] for _, d in shards)
    assert sum(d["out"] for _, d in shards) == len(sharded)
    assert sum(1 for c in commits for w in c if isinstance(w, CloseOuts)) == len(shards)
    # R9.8: hand-for-hand starts after the shards closed, on the exact count
    closed_at = next(i for i, c in enumerate(commits) if any(isinstance(w, CloseOuts)
                                                            for w in c))
    on = [e for e in log if e["type"] == "hand_for_hand" and e["on"]]
    assert on and on[0]["at_ms"] >= sharded[-1]["at_ms"]
    assert closed_at < len(commits)
    # their places, in time order from the bottom, never in the money (R9.9)
    results = {d["player_id"]: d for _, d in simulation.tournaments.items(tid, "result#")}
    paid_places = sum(1 for prize in record.payouts if prize > 0)
    places = [results[e["player"]]["place"] for e in sharded]
    assert all(results[a["player"]]["place"] > results[b["player"]]["place"]
               for a in sharded for b in sharded if a["at_ms"] < b["at_ms"])
    assert sorted(places) == list(range(24 - len(sharded) + 1, 25))
    assert min(places) > paid_places and all(results[e["player"]]["prize"] == 0
                                              for e in sharded)
    whole = joined(log, "finished", "placed")
    assert whole["places"] == {p: d["place"] for p, d in results.items()}
    assert len(results) == 24 and simulation.tournaments.items(tid, field_shards.PLACED_KEY)
    # the outs the shards counted carry no players left; those the field item counted do
    outs = {d["player_id"]: d for _, d in simulation.tournaments.items(tid, "out#")}
    assert all(outs[e["player"]]["left"] is None for e in sharded)
    assert all(outs[e["player"]]["left"] is not None for e in eliminated[first_placed:])


def test_issue_23_a_player_out_before_the_money_learns_their_place_by_their_lookup() -> None:
    """A player the shards counted sees no result in their tournament lookup until the shards
    close, and their place (no prize) from then on; the write that closes the shards places
    them, and a lost placing is done again by the payout step (:func:`.settle`), once."""
    simulation, log, _ = run()
    deps, tid = simulation.service.deps, simulation.tournament_id
    first = next(e for e in log if e["type"] == "eliminated")
    assert first["place"] is None
    you = tournaments.describe(deps, tid, first["player"])["you"]
    assert you["result"]["place"] > 0 and you["result"]["prize"] == 0
    assert field_shards.place_sharded(deps, tid) == 0  # done: a second run writes nothing


def test_issue_23_standings_show_players_out_on_a_shard_at_their_place_so_far() -> None:
    """While the shards count, ``get_standings``' ranking lists the players they counted (no
    ``result#`` yet) at the place their ``out#`` items give them so far, with no prize."""
    from naiko_service.usecases import standings

    terms = replace(terms_for("mtt", Variant.NLHE, 10, 24), seat_count=3)
    simulation = Simulation(terms, 24, 5, check=True)
    tid = simulation.tournament_id
    simulation.register()
    seen = False
    while simulation.step():
        record = simulation.tournaments.load(tid)
        if record.serial or not any(s.out for s in record.shards.values()):
            continue
        rows = standings.ranked(simulation.service.deps, record)
        out = [row for row in rows if row[2] == 0]
        assert len(rows) == 24 and len(out) == 24 - record.players_left
        assert sorted(row[4] for row in out) == list(range(record.players_left + 1, 25))
        seen = True
        break
    assert seen


def test_r9_11_r9_12_issue_23_late_registrations_outs_keep_their_count_and_shards_follow() -> None:
    """Late registration with re-entries (R9.11, R9.12): the players out while it is open are
    placed when it closes, from the bottom, by their last entry (their ``out#`` items carry
    ``left``); the shards count only after that (no place at the elimination) and their
    players take the places just above; the serial zone's players the top ones. Each player
    placed once, and what each was told last is their place."""
    terms = replace(terms_for("mtt", Variant.NLHE, 10, 30), seat_count=6, starting_stack=1_000,
                    late_registration_level=1, entries_per_player=3, bots_allowed=True)
    simulation = Simulation(terms, 30, 3, check=True, reentries=4)
    log = simulation.run()
    tid = simulation.tournament_id
    last: dict[str, dict[str, Any]] = {}
    for _, data in simulation.tournaments.items(tid, "out#"):  # in time order
        last[data["player_id"]] = data
    sharded = [d for d in last.values() if d["left"] is None]
    assert sharded
    first, final = min(d["at_ms"] for d in sharded), max(d["at_ms"] for d in sharded)
    late = [d for d in last.values() if d["left"] is not None and d["at_ms"] < first]
    serial = [d for d in last.values() if d["left"] is not None and d["at_ms"] > final]
    assert late and serial and len(late) + len(sharded) + len(serial) == 29
    results = {d["player_id"]: d["place"] for _, d in simulation.tournaments.items(tid, "result#")}
    assert len(results) == 30 and sorted(results.values())[0] == 1
    assert all(results[d["player_id"]] <= d["left"] for d in late)  # placed from their count
    places = {name: [results[d["player_id"]] for d in group]
              for name, group in (("late", late), ("sharded", sharded), ("serial", serial))}
    assert max(places["serial"]) < min(places["sharded"])
    assert max(places["sharded"]) < min(places["late"])
    told: dict[str, Any] = {}
    for entry in log:
        if entry["type"] == "eliminated":
            told[entry["player"]] = entry["place"]
    assert all(results[p] == place for p, place in told.items() if place is not None)
    assert {p for p, place in told.items() if place is None} == {d["player_id"] for d in sharded}
    assert joined(log, "finished", "placed")["places"] == results
