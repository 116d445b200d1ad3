"""R10.3: the integrity review reads the Hands table itself (moto, the table from
template.yaml): the hand items of a parallel Scan, opened with the state key, the players'
entries skipped; the review of the scan equals the review of the records written."""

from __future__ import annotations

import boto3
from aws_testing import REGION, create_tables_from_template
from integrity_testing import normal, strong_fold
from moto import mock_aws
from naiko_service.aws.histories import history_puts
from naiko_service.integrity.analysis import Review, Thresholds
from naiko_service.integrity.sources import from_hands_table
from naiko_service.records import Sealer

KEY = bytes(range(32))


def test_r10_3_a_scan_of_the_hands_table_gives_back_every_stored_hand_once():
    records = [strong_fold("A", "B") for _ in range(6)] + [normal("A", "B") for _ in range(6)]
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        table = create_tables_from_template(client)["HandHistoryTable"]
        sealer = Sealer(KEY)
        for record in records:
            for put in history_puts(table, sealer, record):
                client.put_item(**{k: v for k, v in put.items() if k != "ConditionExpression"
                                   and k != "ExpressionAttributeNames"})
        scanned = [r for segment in range(3)
                   for r in from_hands_table(client, table, sealer, segment=segment,
                                             total_segments=3)]
        late = list(from_hands_table(client, table, sealer, since_ms=records[0].ended_ms + 1))
    assert sorted(r.key for r in scanned) == sorted(r.key for r in records)
    assert {r.key: r for r in scanned} == {r.key: r for r in records}
    assert late == []  # every hand ended at the same time, before the cut
    thresholds = Thresholds(min_shared_hands=5)
    assert Review(thresholds).add_all(sorted(scanned, key=lambda r: r.key)).given \
        == Review(thresholds).add_all(records).given
