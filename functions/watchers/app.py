"""Spectators' updates: a batch of up to 10 ``WatchersQueue`` records (SQS FIFO, one message
group per table, or per table and shard), each one write's public update of a table, posted to
every spectator of the table (of the shard) by ``naiko_service.usecases.spectators.deliver``;
a table above 1,000 spectators has its update split into one message per shard instead.

A failed record is reported with every later one (``ReportBatchItemFailures``; the FIFO order
holds); after 3 receives it goes to the dead-letter queue (alarm ``WatcherDeadLettersAlarm``).
A spectator that misses an update sees the gap in versions and asks for a snapshot. See
``docs/service.md`` ("Spectators").
"""

from __future__ import annotations

from typing import Any

from naiko_service import bootstrap

logger = bootstrap.logger


@bootstrap.entry_point("watchers")
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    # imported with the service, on the first batch (nothing at import: cold start)
    from naiko_service.usecases.spectators import deliver
    from naiko_service.watcher_queue import SpectatorUpdate, handle_records

    deps = bootstrap.get_service().deps

    def one(update: SpectatorUpdate) -> None:
        logger.thread_safe_append_keys(table_id=update.table_id, version=update.version,
                                       shard=update.shard)
        done = deliver(deps, update)
        logger.debug("spectators posted", extra={"sent": done.sent, "gone": done.gone,
                                                 "failed": done.failed, "split": done.split,
                                                 "pages": done.pages})

    result = handle_records(event.get("Records", []), deliver=one, warn=bootstrap.warn)
    bootstrap.count("SpectatorUpdates", result.delivered)
    return result.response()
