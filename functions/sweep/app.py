"""Every minute (EventBridge schedule): fire every timer past its deadline. This recovers
tables whose Step Functions wake-up was lost (docs/timers.md)."""

from __future__ import annotations

from typing import Any

from naiko_service import bootstrap

logger = bootstrap.logger


@bootstrap.entry_point("sweep")
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, int]:
    # Every run, first, whatever follows (issue 23 item 6): SweepHeartbeatAlarm treats its
    # absence as the sweep being down. A run that fails still beats (and counts its error).
    bootstrap.count("SweepHeartbeat")
    fired = bootstrap.get_service().sweep()
    bootstrap.count("SweepFired", fired)
    return {"fired": fired}
