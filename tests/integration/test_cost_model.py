"""``scripts/cost_model.py`` runs (a few hands, and a whole Spin) and its bill adds up: the
script is how the cost figures in the docs are measured, so it must keep working."""

from __future__ import annotations

import importlib.util
import math
import re
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cost_model", ROOT / "scripts/cost_model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["cost_model"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def total(output: str, label: str) -> float:
    match = re.search(rf"^{re.escape(label)}\s+\$(\d+\.\d+)", output, re.MULTILINE)
    assert match, output
    return float(match.group(1))


def test_a_cash_table_is_billed_per_1000_hands(capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script()
    assert script.main(["--hands", "8", "--design", "wake-up", "--seed", "3"]) == 0
    output = capsys.readouterr().out
    assert 0 < total(output, "TOTAL $ per 1,000 hands") < 1


def test_a_whole_spin_is_billed_from_registration_to_the_last_prize(
        capsys: pytest.CaptureFixture[str]) -> None:
    script = load_script()
    # seed 4: 43 hands (12 s of CPU on moto), seed 2 59 (16.5 s); the same kinds of call, write
    # and bill line either way (issue 28 item 12)
    assert script.main(["--tournament", "spin", "--design", "wake-up", "--seed", "4"]) == 0
    output = capsys.readouterr().out
    per_tournament = total(output, "TOTAL $ per tournament")
    assert 0 < per_tournament < 0.1
    assert re.search(r"AWS calls: TransactWriteItems\s+[1-9]", output)  # entries, hands


def test_the_model_counts_the_posts_the_code_makes_and_states_the_goal(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Messages are the PostToConnection calls the handlers made (from the fan-out's pool
    too); a frame is answered by its update (no ack follows an action); the goal is stated."""
    script = load_script()
    bill = script.Table("wake-up", 6, 5).run()
    assert bill.messages_out == bill.calls["PostToConnection"] > 0
    assert bill.answers["update"] > 0 and bill.answers["ack"] == 0
    assert sum(i.pooled_calls["PostToConnection"] for i in bill.invocations) > 0
    assert bill.log_bytes > 0 and bill.log_lines > 0
    # issue 23 item 10: sealed against the preset dictionary (the template's SealDictionary),
    # a 6-max table's item mid-hand (state and fallback) is a 2-unit write at most (3 before)
    assert 0 < bill.largest_item["naiko-cost-tables"] <= 2048, bill.largest_item
    print(script.report({"wake-up": bill}))
    output = capsys.readouterr().out
    assert re.search(r"per 1,000 6-max hands: (met|not met) \(goal <= \$0\.15", output)
    for service in ("CloudWatch Logs $", "X-Ray $", "Secrets+KMS $"):
        assert total(output, service) >= 0


def test_r9_13_r9_16_a_tournament_s_writes_are_counted_by_item_and_ledger_reason() -> None:
    """The tournaments table's writes are billed to their item's kind (a knockout's
    ``bounty#`` item and the tournament item it writes again, a deal's ``deal#`` items) and the
    ledger's entries to their reason, transactions at twice the units: what the tournament
    bill's ``tournament writes`` line prints (docs/benchmarks.md)."""
    from aws_testing import load_template

    script = load_script()
    counting = script.Counting(load_template(), "express", "standard")
    tournaments, ledger = counting.tournaments_table, counting.ledger_table
    assert tournaments and ledger and tournaments != ledger

    def put(table: str, **item: str) -> dict[str, Any]:
        return {"Put": {"TableName": table, "Item": {k: {"S": v} for k, v in item.items()}}}

    knockout = {"TransactItems": [
        put(tournaments, tournament_id="u1", item="bounty#bob#t1#7", data="{}"),
        put(ledger, account="ann", entry="1", reason="bounty"),
        {"Update": {"TableName": tournaments,
                    "Key": {"tournament_id": {"S": "u1"}, "item": {"S": "tournament"}}}}]}
    counting.observe("TransactWriteItems", knockout, {})  # outside an invocation: not billed
    assert not counting.bill.tournament_writes
    with counting.invocation("timer"):
        counting.observe("TransactWriteItems", knockout, {})
        counting.observe("PutItem", put(tournaments, tournament_id="u1",
                                        item="deal#ann")["Put"], {})
    bill = counting.bill
    assert bill.tournament_writes == {"bounty#": 1, "tournament": 1, "deal#": 1}
    assert bill.tournament_wru == {"bounty#": 2, "tournament": 2, "deal#": 1}
    assert bill.ledger_writes == {"bounty": 1}
    line = script.tournament_writes_line("wake-up", bill)
    assert "3 = 5 WRU" in line and "bounty# 1 (2 WRU)" in line
    assert "ledger entries: bounty 1" in line


def burn(seconds: float) -> None:
    """Spend *seconds* of this thread's CPU time (what a slow call in moto does)."""
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


def test_the_handler_s_time_is_its_own_cpu_not_moto_s_answers_nor_the_machine_s_load() -> None:
    """Issue 23 item 10: the modelled duration is CPU time x CPU_FACTOR plus each call's
    assumed latency: the invoking thread's CPU over the invocation minus its CPU inside moto's
    answers (moto runs in-process, in that thread), plus the client side of the fan-out pool's
    posts. Here each call spends 0.05 s of CPU on its client side (botocore's: the function's
    CPU on Lambda, counted) and 0.2 s in moto's answer (AWS's work: not counted); a sleep (the
    thread descheduled, as on a loaded machine) is no CPU; a post from another thread is one
    round of latency. By wall time (the method before, printed alongside) the sleep counts."""
    from aws_testing import load_template

    script = load_script()
    counting = script.Counting(load_template(), "express", "standard")
    moto = script.Counting.answer(lambda stubber, event_name, request: burn(0.2))

    def slow(client: Any, operation: str, params: dict[str, Any]) -> Any:
        burn(0.05)  # botocore: serialise, sign, parse
        moto(None, "before-send", None)  # moto's answer, in botocore's before-send hook
        return {}

    call = counting.make_api_call(slow)
    post = {"ConnectionId": "c1", "Data": b"{}"}
    with counting.invocation("game") as invocation:
        call(None, "GetItem", {"TableName": "naiko-cost-tables", "Key": {},
                               "ConsistentRead": True})
        pool = threading.Thread(target=call, args=(None, "PostToConnection", post))
        pool.start()
        pool.join()
        time.sleep(0.2)
    assert 0.05 <= invocation.pooled_cpu < 0.2  # the pool's client side, not moto's answer
    assert 100 <= invocation.handler_cpu_ms < 150  # the two client sides, not moto's 400 ms
    assert invocation.cpu >= 0.25 and invocation.aws_cpu >= 0.2  # moto's burn, measured
    assert invocation.calls == {"GetItem": 1, "PostToConnection": 1}
    assert invocation.pooled_calls == {"PostToConnection": 1}
    latency = script.LATENCY_MS["GetItem"] + script.LATENCY_MS["PostToConnection"]
    assert invocation.latency_ms() == latency
    assert invocation.modeled_ms == math.ceil(invocation.handler_cpu_ms * script.CPU_FACTOR
                                              + latency)
    assert invocation.handler_wall_ms >= 200  # the sleep, by wall time


def test_lambda_s_platform_lines_are_counted_as_the_template_configures_them() -> None:
    """Issue 23 item 10: Lambda's START/END/REPORT lines are billed only for a function whose
    ``LoggingConfig`` lets them through; the template keeps them out of every function (JSON
    log format, system level WARN), so the logs billed are the handlers' own lines."""
    import copy

    from naiko_local.template import load_template

    script = load_script()
    template = load_template()
    text = script.PLATFORM_LOG_BYTES + 3 * script.LOG_EVENT_OVERHEAD
    for function in script.FUNCTION_IDS:
        assert script.platform_log_bytes(template, function) == 0, function
    chatty = copy.deepcopy(template)
    chatty["Resources"]["GameFunction"]["Properties"]["LoggingConfig"]["SystemLogLevel"] = "INFO"
    del chatty["Resources"]["TimerFunction"]["Properties"]["LoggingConfig"]["LogFormat"]
    assert script.platform_log_bytes(chatty, "game") == text
    assert script.platform_log_bytes(chatty, "timer") == text
    assert script.platform_log_bytes(chatty, "sweep") == 0
    # and the bill's logs are the handlers' lines with their event overhead, nothing more
    bill = script.Table("wake-up", 3, 5).run()
    assert bill.invocations and all(i.platform_log_bytes == 0 for i in bill.invocations)
    # the EMF lines as deployed: every metric under the template's service dimension
    assert bill.metrics and all("service=naiko" in metric for metric in bill.metrics)
    logs = script.costs(bill)["CloudWatch Logs"]["MB ingested"] * 1024 ** 2
    scale = 1000 / bill.hands
    assert logs == pytest.approx(
        (bill.log_bytes + script.LOG_EVENT_OVERHEAD * bill.log_lines) * scale)
