#!/usr/bin/env python3
"""Ops: review chip flow between accounts over stored hands (R10.3) and print the flags.

    .venv/bin/python scripts/integrity_review.py --hands export.jsonl [--top 20] [--json]
    .venv/bin/python scripts/integrity_review.py --table naiko-prod-hands --region eu-west-1 \
        [--since 2026-11-01] [--segments 4]      # the state key from $STATE_KEY_SECRET_ARN

Reads only stored records: a JSON Lines export (``HandRecord.to_document`` per line) or a
Scan of the Hands table (``$HISTORY_TABLE``), each hand opened with the state key
(``$STATE_KEY`` or the secret ``$STATE_KEY_SECRET_ARN``, as the service reads it). Prints the
ranked flags (chip dumping, soft play, multi-accounting rings), each with its score, what was
seen and the hands that raised it; ``--json`` prints them as JSON Lines for a review tool.
Flags are for a person to review: nothing here reaches a player. What each signal means and
cannot see: docs/integrity.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "layers" / "engine"))

from naiko_service.hand_records import HandRecord  # noqa: E402
from naiko_service.integrity.analysis import Review, Thresholds  # noqa: E402
from naiko_service.integrity.sources import from_hands_table, from_jsonl  # noqa: E402


def table_records(args: argparse.Namespace) -> Iterator[HandRecord]:
    import boto3
    from naiko_service.bootstrap import Config, state_sealer

    # only the state key is read here: the service's other tables need no name
    unused = {name: "-" for name in ("TABLES_TABLE", "ACCOUNTS_TABLE", "LEDGER_TABLE",
                                     "CONNECTIONS_TABLE")}
    config = Config.from_env({**unused, **os.environ, "HISTORY_TABLE": args.table})
    client = boto3.client("dynamodb", region_name=args.region)
    sealer = state_sealer(config, lambda: boto3.client("secretsmanager",
                                                       region_name=args.region))
    since = None
    if args.since:
        since = int(datetime.fromisoformat(args.since).replace(tzinfo=UTC).timestamp() * 1000)
    for segment in range(args.segments):
        yield from from_hands_table(client, args.table, sealer, segment=segment,
                                    total_segments=args.segments, since_ms=since)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--hands", type=Path, help="a JSON Lines export of hand records")
    source.add_argument("--table", default=os.environ.get("HISTORY_TABLE"),
                        help="the Hands table (default: $HISTORY_TABLE)")
    parser.add_argument("--region", default=os.environ.get("AWS_REGION")
                        or os.environ.get("AWS_DEFAULT_REGION"))
    parser.add_argument("--since", help="only hands ended on or after this UTC date")
    parser.add_argument("--segments", type=int, default=1, help="Scan segments, read in turn")
    parser.add_argument("--top", type=int, default=20, help="flags printed (0: all)")
    parser.add_argument("--json", action="store_true", help="flags as JSON Lines")
    args = parser.parse_args(argv)
    if args.hands is None and not args.table:
        parser.error("name an export with --hands or the Hands table with --table")
    records = from_jsonl(args.hands) if args.hands is not None else table_records(args)
    review = Review(Thresholds()).add_all(records)
    flags = review.flags()
    shown = flags if args.top == 0 else flags[:args.top]
    if args.json:
        for flag in shown:
            print(json.dumps(flag.to_dict(), separators=(",", ":")))
        return 0
    print(f"{review.hands:,} hands reviewed, {len(review.hands_of):,} accounts, "
          f"{len(flags)} flags")
    for flag in shown:
        hands = ", ".join(f"{t}#{n}" for t, n in flag.hands[:5])
        more = f" (+{len(flag.hands) - 5} more)" if len(flag.hands) > 5 else ""
        joiner = " -> " if flag.kind == "dumping" else ", "
        print(f"{flag.score:6.1f}  {flag.kind:9s}  {joiner.join(flag.accounts)}  "
              f"{json.dumps(flag.details, separators=(',', ':'))}  hands: {hands}{more}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
