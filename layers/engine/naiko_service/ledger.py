""":mod:`naiko_service.ledger` checks that no chip was created or lost: a sum anyone can check.

Chips enter the system only by grants (the ledger's ``grant`` entries). Every other movement
moves chips between an account and a table or tournament, with a ledger entry written in the
same transaction. So at any moment::

    granted = accounts + tables + tournaments

(house accounts are accounts; their share is shown on its own), and every account's balance is
the sum of its ledger entries. :func:`audit` computes both; ``scripts/ledger_check.py`` prints
them for a deployment, and the tests assert them after every injected fault.

>>> from naiko_service.ports import LedgerEntry, LedgerReason
>>> entries = [LedgerEntry("ann", 1000, LedgerReason.GRANT, "ops", 0),
...            LedgerEntry("ann", -200, LedgerReason.BUY_IN, "t1", 5)]
>>> result = audit({"ann": 800}, entries, {"t1": 200})
>>> result.holds, result.line()
(True, 'granted 1,000 = accounts 800 + tables 200 + tournaments 0: holds')
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .ports import OPS_PREFIX, LedgerEntry, LedgerReason
from .records import Sealer

HOUSE_PREFIX = "house:"
"""Accounts of the house (bots' bankroll, the prize account) are named ``house:...``."""

HOUSE_BOTS = HOUSE_PREFIX + "bots"
"""The house account BOT seats buy in from and cash out to (R8.4, R7.12)."""


@dataclass(frozen=True, slots=True)
class Audit:
    """The identity and every account whose balance is not the sum of its ledger."""

    granted: int
    accounts: int
    tables: int
    tournaments: int = 0
    house: int = 0
    """The house accounts' part of ``accounts``."""
    mismatched: tuple[tuple[str, int, int], ...] = field(default_factory=tuple)
    """(account, balance, sum of its ledger entries) where the two differ."""

    @property
    def holds(self) -> bool:
        """Whether no chip was created or lost."""
        return (self.granted == self.accounts + self.tables + self.tournaments
                and not self.mismatched)

    def line(self) -> str:
        """The identity as one line, e.g. ``granted 30,000 = accounts 24,000 + tables 6,000 +
        tournaments 0: holds``."""
        house = f" (house {self.house:,})" if self.house else ""
        verdict = "holds" if self.holds else "BROKEN"
        text = (f"granted {self.granted:,} = accounts {self.accounts:,}{house} + tables "
                f"{self.tables:,} + tournaments {self.tournaments:,}: {verdict}")
        for account, balance, ledger in self.mismatched:
            text += f"\n  {account}: balance {balance:,} but ledger {ledger:,}"
        return text


def audit(balances: Mapping[str, int], ledger: Iterable[LedgerEntry],
          table_chips: Mapping[str, int],
          tournament_chips: Mapping[str, int] | None = None) -> Audit:
    """Check the identity over every account balance, ledger entry and table (stacks and what
    is in the middle: :meth:`naiko.state.TableState.total_chips`)."""
    sums: dict[str, int] = defaultdict(int)
    granted = 0
    for entry in ledger:
        sums[entry.player_id] += entry.amount
        if entry.reason is LedgerReason.GRANT:
            granted += entry.amount
    accounts = set(balances) | set(sums)
    mismatched = tuple(sorted((a, balances.get(a, 0), sums.get(a, 0)) for a in accounts
                              if balances.get(a, 0) != sums.get(a, 0)))
    return Audit(granted=granted, accounts=sum(balances.values()),
                 tables=sum(table_chips.values()),
                 tournaments=sum((tournament_chips or {}).values()),
                 house=sum(v for k, v in balances.items() if k.startswith(HOUSE_PREFIX)),
                 mismatched=mismatched)


def audit_dynamodb(client: Any, accounts_table: str, ledger_table: str, tables_table: str,
                   sealer: Sealer, tournaments_table: str | None = None) -> Audit:
    """:func:`audit` over a deployment's DynamoDB tables: every account, every ledger entry,
    every cash table (whose sealed state is opened with *sealer*; a tournament's tables play
    tournament chips, which are not money, R7.6) and what each tournament holds (entries
    received, prizes not paid yet). An ops check that reads whole tables (Scan), never on a
    path a player waits for.

    :param client: A low-level boto3 DynamoDB client.
    """
    from .aws.dynamodb import DynamoTableStore
    from .aws.tournaments import unpacked

    balances = {str(item["player_id"]["S"]): int(item.get("balance", {"N": "0"})["N"])
                for item in _scan(client, accounts_table)}
    ledger = [LedgerEntry(str(item["account"]["S"]), int(item["amount"]["N"]),
                          LedgerReason(item["reason"]["S"]), str(item["ref"]["S"]),
                          int(item["at_ms"]["N"])) for item in _scan(client, ledger_table)
              if not str(item["account"]["S"]).startswith(OPS_PREFIX)]  # the operator log
    store = DynamoTableStore(client, tables_table, accounts_table, sealer)
    tables = {}
    for item in _scan(client, tables_table):
        record = store.from_item(item)
        if record.tournament is None:
            tables[record.table_id] = record.state.total_chips()
    held: dict[str, int] = {}
    if tournaments_table is not None:
        for item in _scan(client, tournaments_table):
            tournament_id, key = str(item["tournament_id"]["S"]), str(item["item"]["S"])
            if key == "tournament":
                chips = int(unpacked(item["doc"])["pool_held"])
            elif key.startswith("count#") and "closed" not in item:
                # entries on a registration counter still open: not folded into the
                # tournament item yet (issue 23)
                chips = int(item.get("chips", {"N": "0"})["N"])
            else:
                continue
            held[tournament_id] = held.get(tournament_id, 0) + chips
    return audit(balances, ledger, tables, held)


def _scan(client: Any, table: str) -> Iterator[dict[str, Any]]:
    request: dict[str, Any] = {"TableName": table, "ConsistentRead": True}
    while True:
        response = client.scan(**request)
        yield from response.get("Items", [])
        if not response.get("LastEvaluatedKey"):
            return
        request["ExclusiveStartKey"] = response["LastEvaluatedKey"]
