"""Timer callback: ``{"table_id", "token"}`` from the timer state machines (a table's wake-up).

It fires the timer named by the token if it is still pending, or, if the token names the
table's armed wake-up, every timer already due; then the table re-arms one wake-up for its
earliest deadline. Anything else (the turn moved on, a superseded wake-up, a duplicate
execution) is a no-op, so a timer never needs cancelling. See ``docs/timers.md``.
"""

from __future__ import annotations

from typing import Any

from naiko_service import bootstrap

logger = bootstrap.logger


@bootstrap.entry_point("timer")
def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    table_id, token = event.get("table_id"), event.get("token")
    logger.thread_safe_append_keys(table_id=table_id, token=token)
    if not isinstance(table_id, str) or not isinstance(token, str):
        raise ValueError(f"a timer event needs string table_id and token, got {sorted(event)}")
    acted = bootstrap.get_service().timer_fired(table_id, token)
    bootstrap.count("TimersFired" if acted else "TimersStale")
    return {"table_id": table_id, "token": token, "acted": acted}
