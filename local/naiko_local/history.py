""":mod:`naiko_local.history` is ``naiko-history``: stored hands (R10.1) in the formats
trackers and tools read.

::

    naiko-history --table T --hand N [--player P] [--format pokerstars|phh|ohh|json|record]
    naiko-history --table T [--after N] [--limit K] ...      a table's hands, in order
    naiko-history --player P --recent K ...                  a player's K latest hands
    ... [--file records.jsonl] [--out FILE]

A hand is written as *the reader* saw it: ``--player P`` (who must have been dealt in), or,
without it, an observer, who sees the hands shown at the showdown and nothing private.
Formats: ``pokerstars`` (the text trackers import), ``phh`` (the poker hand history standard;
no Naiko variant), ``ohh`` (Open Hand History JSON), ``json`` (the reader's record, as the
``get_hand`` route answers it) and ``record`` (the stored records as JSON Lines, hidden cards
included: ops only, and what ``--file`` reads back). A hand a format cannot hold (a cancelled
hand; a Naiko hand in PHH) is skipped with a note on stderr.

The records come from ``--file`` (JSON Lines of stored records), or from the deployment's
``HISTORY_TABLE`` with the state key (``STATE_KEY`` or ``STATE_KEY_SECRET_ARN``) and the other
variables :class:`naiko_service.bootstrap.Config` reads, as ``naiko-tournament export`` does.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

from naiko.hand_formats import HandExportError
from naiko.phh import PHHError
from naiko_service import hand_records
from naiko_service.hand_records import HandRecord, NotInHand
from naiko_service.ports import HandHistories

FORMATS = (*hand_records.EXPORT_FORMATS, "record")


class FileHistories:
    """:class:`~naiko_service.ports.HandHistories` over stored records read from JSON Lines
    (``--format record``): offline, no AWS."""

    def __init__(self, records: Iterable[HandRecord]):
        self.records = {record.key: record for record in records}

    @classmethod
    def load(cls, path: Path) -> FileHistories:
        with open(path, encoding="utf-8") as stream:
            return cls(HandRecord.from_document(json.loads(line)) for line in stream
                       if line.strip())

    def hand(self, table_id: str, hand_number: int) -> HandRecord | None:
        return self.records.get((table_id, hand_number))

    def player_hands(self, player_id: str, before: str | None = None,
                     limit: int = 20) -> hand_records.Page:
        entries = sorted((p for r in self.records.values() for p in r.pointers()
                          if p.player_id == player_id
                          and (before is None or p.cursor < before)),
                         key=lambda p: p.cursor, reverse=True)
        more = len(entries) > limit
        return hand_records.Page(entries[:limit], entries[limit - 1].cursor if more else None)

    def table_hands(self, table_id: str, after: int = 0,
                    limit: int = 100) -> list[HandRecord]:
        return sorted((r for (t, n), r in self.records.items() if t == table_id and n > after),
                      key=lambda r: r.hand_number)[:limit]


def deployed() -> HandHistories:
    """The deployment's hands (``HISTORY_TABLE`` and the ``bootstrap`` variables).

    :raises SystemExit: If the deployment stores no hands.
    """
    from naiko_service import bootstrap

    config = bootstrap.Config.from_env()
    service = bootstrap.build_service(config, endpoint="https://unused.invalid")
    if service.deps.histories is None:
        raise SystemExit("naiko-history: HISTORY_TABLE is not set")
    return service.deps.histories


def select(histories: HandHistories, args: argparse.Namespace) -> list[HandRecord]:
    """The records the arguments name, oldest first."""
    if args.table is not None and args.hand is not None:
        record = histories.hand(args.table, args.hand)
        if record is None:
            raise SystemExit(f"naiko-history: no hand {args.hand} at table {args.table}")
        return [record]
    found: list[HandRecord] = []
    if args.table is not None:
        after = args.after
        while len(found) < args.limit:
            hands = histories.table_hands(args.table, after, min(100, args.limit - len(found)))
            if not hands:
                break
            found += hands
            after = hands[-1].hand_number
        return found
    before = None
    while len(found) < args.recent:
        page = histories.player_hands(args.player, before, min(50, args.recent - len(found)))
        for entry in page.hands:
            record = histories.hand(entry.table_id, entry.hand_number)
            if record is not None:
                found.append(record)
        if page.next is None:
            break
        before = page.next
    return found[::-1]


def write(records: list[HandRecord], fmt: str, reader: str | None, out: TextIO,
          err: TextIO) -> int:
    """Write *records* in *fmt* for *reader*; returns how many were written."""
    texts = []
    for record in records:
        name = f"hand {record.hand_number} of table {record.table_id}"
        if fmt == "record":
            texts.append(json.dumps(record.to_document(), separators=(",", ":")) + "\n")
            continue
        try:
            texts.append(hand_records.export(record, fmt, reader))
        except NotInHand:
            print(f"naiko-history: {reader} was not dealt into {name}", file=err)
        except (HandExportError, PHHError) as error:
            print(f"naiko-history: {name} skipped ({error.code}: {error})", file=err)
        except ValueError as error:
            print(f"naiko-history: {name} skipped ({error})", file=err)
    if fmt == "phh" and len(texts) > 1:
        out.write("\n".join(f"[{i}]\n{text}" for i, text in enumerate(texts, 1)))
    elif fmt == "pokerstars":
        out.write("\n\n".join(texts))
    elif fmt == "ohh":
        out.write("\n".join(texts))
    else:
        out.write("".join(texts))
    return len(texts)


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="naiko-history", description="Stored hands (R10.1) as PokerStars text, PHH or "
        "OHH, for one reader.")
    parser.add_argument("--table", help="the table's id")
    parser.add_argument("--hand", type=int, help="one hand's number (with --table)")
    parser.add_argument("--after", type=int, default=0,
                        help="with --table alone: hands numbered above this")
    parser.add_argument("--limit", type=int, default=1_000,
                        help="with --table alone: at most this many hands")
    parser.add_argument("--player", help="the reader (dealt in); without it, an observer")
    parser.add_argument("--recent", type=int, help="with --player: the player's K latest hands")
    parser.add_argument("--format", choices=FORMATS, default="pokerstars")
    parser.add_argument("--file", type=Path, help="read records from JSON Lines (offline)")
    parser.add_argument("--out", type=Path, help="write here (default: standard output)")
    return parser


def main(argv: Sequence[str] | None = None, *, histories: HandHistories | None = None,
         out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The command. *histories* replaces ``--file`` and the deployment (tests)."""
    args = parser().parse_args(argv)
    if args.table is None and (args.player is None or args.recent is None):
        parser().error("give --table (and --hand), or --player with --recent")
    if args.hand is not None and args.table is None:
        parser().error("--hand needs --table")
    if args.format == "json" and args.player is None:
        parser().error("--format json is one player's view: give --player")
    source = histories or (FileHistories.load(args.file) if args.file else deployed())
    records = select(source, args)
    err = err or sys.stderr
    if args.out is not None:
        with open(args.out, "w", encoding="utf-8") as stream:
            written = write(records, args.format, args.player, stream, err)
    else:
        written = write(records, args.format, args.player, out or sys.stdout, err)
    if not written:
        print("naiko-history: no hand written", file=err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
