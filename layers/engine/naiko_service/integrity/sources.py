""":mod:`naiko_service.integrity.sources`: the stored hands a review reads (R10.3).

- :func:`from_jsonl`: an export, one :meth:`~naiko_service.hand_records.HandRecord.to_document`
  per line (``scripts/bench_integrity.py --save`` writes one);
- :func:`from_hands_table`: a parallel ``Scan`` of the Hands table's hand items (the player
  entries are skipped), each opened with the state key. A batch job's read: run it against a
  point-in-time restore or an export when the table is large (``docs/integrity.md``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..hand_records import HandRecord, open_sealed
from ..sealing import Sealer

HAND_PREFIX = "hand#"
TABLE_PREFIX = "table#"


def from_jsonl(path: Path) -> Iterator[HandRecord]:
    """The records of a JSON Lines export (blank lines skipped)."""
    with path.open() as lines:
        for line in lines:
            if line.strip():
                yield HandRecord.from_document(json.loads(line))


def from_hands_table(client: Any, table: str, sealer: Sealer, *, segment: int = 0,
                     total_segments: int = 1, since_ms: int | None = None,
                     ) -> Iterator[HandRecord]:
    """The hand items of one ``Scan`` segment of the Hands table, opened.

    :param since_ms: Only hands that ended at or after this time.
    """
    names = {"#pk": "pk", "#sk": "sk", "#blob": "blob", "#ended": "ended_ms"}
    values: dict[str, Any] = {":hand": {"S": HAND_PREFIX}}
    condition = "begins_with(#sk, :hand)"
    if since_ms is not None:
        condition += " AND #ended >= :since"
        values[":since"] = {"N": str(since_ms)}
    request: dict[str, Any] = {
        "TableName": table, "Segment": segment, "TotalSegments": total_segments,
        "ProjectionExpression": "#pk, #sk, #blob, #ended", "FilterExpression": condition,
        "ExpressionAttributeNames": names, "ExpressionAttributeValues": values}
    while True:
        page = client.scan(**request)
        for item in page.get("Items", ()):
            table_id = item["pk"]["S"][len(TABLE_PREFIX):]
            number = int(item["sk"]["S"][len(HAND_PREFIX):])
            yield open_sealed(sealer, table_id, number, bytes(item["blob"]["B"]))
        last = page.get("LastEvaluatedKey")
        if not last:
            return
        request["ExclusiveStartKey"] = last
