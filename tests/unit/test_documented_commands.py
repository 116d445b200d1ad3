"""Every script the README and docs/*.md tell a reader to run still runs (issue 21, item 10).

The commands are collected from the code (fenced blocks and inline spans) of ``README.md`` and
``docs/*.md``: ``.venv/bin/python scripts/X.py ...``, ``python scripts/X.py ...``,
``scripts/X.py ...`` and ``scripts/run ...``. For every script in ``scripts/``:

- it is run once in its smallest form (:data:`SMALLEST`: a few hands, a few frames, a
  ``--check``), or with ``--help`` where its smallest useful run takes minutes or needs AWS
  (:data:`HELP_ONLY`), and must exit 0;
- every ``--option`` a documented command gives it must be one its ``--help`` lists.

A new script must say which of the two it is (the test fails until it does), and a documented
script must exist. Kept under ~30 s on 2 cores: the slow ones only answer ``--help``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

SMALLEST: dict[str, list[str]] = {
    "bench_authorizer.py": ["--calls", "20", "--repeat", "1", "--cold-runs", "1"],
    "bench_bots.py": ["--hands", "3"],
    "bench_hands.py": ["--hands", "10", "--pokerkit-hands", "3", "--cold-runs", "1"],
    "bench_scale.py": ["--tables", "1", "--actions", "5", "--no-crowd"],
    "bench_service.py": ["--players", "3", "--actions", "5", "--warm-up", "1"],
    "bench_pages.py": ["--players", "30", "--page", "7"],
    "build_eval_tables.py": ["--check"],
    "capacity.py": ["--tables", "10", "--hands", "2"],
    "cost_model.py": ["--hands", "2", "--design", "wake-up"],
    "export_asyncapi.py": ["--check"],
    "export_schemas.py": ["--check"],
    "fuzz_frames.py": ["--frames", "20", "--session", "10"],
    "mint_token.py": ["--new-key", "{tmp}/key.pem"],
    "phh_roundtrip.py": ["--hands", "10"],
    "protocol_examples.py": [],
}
"""Script -> the arguments of its smallest run (``{tmp}``: a fresh temporary folder)."""

HELP_ONLY: dict[str, str] = {
    "bench_cold_start.py": "builds the layer twice: ~10 s a run",
    "bench_evaluator.py": "~7 s even with --quick",
    "bench_registration_rush.py": "a rush of thousands of registrations, on moto too (minutes)",
    "bench_watchers.py": "a table of 10,000 spectators, twice (minutes)",
    "bench_tournament.py": "~11 s at 20 players",
    "fault_matrix.py": "~15 s for one seed, one port, one call per site",
    "grant_chips.py": "writes to AWS DynamoDB",
    "ledger_check.py": "reads AWS DynamoDB",
    "load.py": "starts the whole local stack: ~7 s",
    "local_memory.py": "starts the whole local stack: ~11 s",
    "restore_plan.py": "reads AWS CloudFormation and DynamoDB",
    "rotate_state_key.py": "reads and writes AWS Secrets Manager",
    "tournament_runs.py": "one random tournament can play thousands of hands (minutes)",
    "bench_flood.py": "starts the whole local stack and floods it for several phases: ~40 s",
    "bench_integrity.py": "simulates thousands of BOT hands: minutes (test_integrity.py "
                          "plays a small population)",
    "integrity_review.py": "reads an export or AWS DynamoDB (test_integrity.py runs it on "
                           "an export)",
    "mtt_balance.py": "a whole tournament in virtual time: ~35 s even at 20 players",
    "operator.py": "writes to AWS DynamoDB (test_operator_actions.py and "
                   "test_operator_on_moto.py run it)",
    "director.py": "writes to AWS DynamoDB (test_director.py and test_director_on_moto.py "
                   "run it)",
}
"""Script -> why it is only asked for ``--help``."""

TIMEOUT_S = 60

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_INLINE = re.compile(r"`([^`\n]+)`")
_COMMAND = re.compile(r"(?:(?:\.venv/bin/)?python3?\s+)?scripts/(run|[\w-]+\.py)\b([^\n`|;&#)]*)")
_OPTION = re.compile(r"(?<![\w-])(--[a-z][\w-]*)")


def documented_commands() -> list[tuple[str, str, str]]:
    """``(script, its arguments, the doc)`` for every command in a code block or code span of
    the README and docs/*.md (a line ending in ``\\`` goes on on the next one)."""
    found: list[tuple[str, str, str]] = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        code = [block.replace("\\\n", " ") for block in _FENCE.findall(text)]
        code += _INLINE.findall(_FENCE.sub("", text))
        for snippet in code:
            for match in _COMMAND.finditer(snippet):
                found.append((match.group(1), match.group(2).strip(), doc.name))
    return found


COMMANDS = documented_commands()


def _run(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=TIMEOUT_S, check=False)


def test_documented_commands_are_found() -> None:
    """The collector sees the README's commands (it would pass vacuously otherwise)."""
    scripts = {script for script, _, _ in COMMANDS}
    assert {"bench_service.py", "mint_token.py", "run"} <= scripts
    assert ("bench_service.py", "", "README.md") in COMMANDS


def test_every_documented_script_exists() -> None:
    missing = sorted({f"{script} ({doc})" for script, _, doc in COMMANDS
                      if not (SCRIPTS / script).is_file()})
    assert not missing, f"the docs name scripts that do not exist: {missing}"


def test_every_script_has_a_smoke_form() -> None:
    scripts = {path.name for path in SCRIPTS.glob("*.py")}
    assert not set(SMALLEST) & set(HELP_ONLY)
    assert scripts == set(SMALLEST) | set(HELP_ONLY), (
        "give each script of scripts/ its smallest run in SMALLEST, or say in HELP_ONLY why "
        f"it only answers --help: {sorted(scripts ^ (set(SMALLEST) | set(HELP_ONLY)))}")


def _lists(help_text: str, option: str) -> bool:
    """*option* appears whole in *help_text* (``--seed`` is not ``--seeds``)."""
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text) is not None


def _documented_options(script: str) -> dict[str, str]:
    return {option: doc for name, args, doc in COMMANDS if name == script
            for option in _OPTION.findall(args)}


@pytest.mark.parametrize("script", sorted(p.name for p in SCRIPTS.glob("*.py")))
def test_script_runs_its_smallest_form(script: str, tmp_path: Path) -> None:
    """Exit 0 in the smallest form, and every option the docs give it exists."""
    helped = _run([f"scripts/{script}", "--help"], tmp_path)
    assert helped.returncode == 0, helped.stderr[-3000:]
    unknown = {option: doc for option, doc in _documented_options(script).items()
               if not _lists(helped.stdout, option)}
    assert not unknown, f"documented options {script} does not have: {unknown}"
    if script in SMALLEST:
        args = [arg.replace("{tmp}", str(tmp_path)) for arg in SMALLEST[script]]
        ran = _run([f"scripts/{script}", *args], tmp_path)
        assert ran.returncode == 0, (
            f"scripts/{script} {' '.join(args)} exited {ran.returncode}:\n"
            f"{ran.stderr[-3000:]}")


def test_scripts_run_options_exist(tmp_path: Path) -> None:
    """``scripts/run`` hands its arguments to ``python -m naiko_local.stack``: every option the
    docs give ``scripts/run`` is one the stack takes."""
    helped = _run(["-m", "naiko_local.stack", "--help"], tmp_path)
    assert helped.returncode == 0, helped.stderr[-3000:]
    options = _documented_options("run")
    assert "--bots" in options
    unknown = {option: doc for option, doc in options.items() if not _lists(helped.stdout, option)}
    assert not unknown, f"documented scripts/run options the stack does not have: {unknown}"


_TOURNAMENT = re.compile(r"naiko-tournament\s+(simulate|export|schedule)\b([^\n`|;&#)]*)")


def _tournament_commands() -> list[tuple[str, str, str]]:
    """``(subcommand, its arguments, the doc)`` of every ``naiko-tournament`` command in the
    code of the README and docs/*.md."""
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        code = [block.replace("\\\n", " ") for block in _FENCE.findall(text)]
        code += _INLINE.findall(_FENCE.sub("", text))
        found += [(m.group(1), m.group(2), doc.name) for snippet in code
                  for m in _TOURNAMENT.finditer(snippet)]
    return found


def test_naiko_tournament_options_exist() -> None:
    """Every option the docs give ``naiko-tournament simulate`` (``--bounties``, R9.13, ...),
    ``export`` or ``schedule`` is one it takes."""
    commands = _tournament_commands()
    assert {"--kind", "--bounties"} <= {
        option for sub, args, _ in commands if sub == "simulate"
        for option in _OPTION.findall(args)}
    # this checkout's code (not an installed copy's)
    path = os.pathsep.join(str(ROOT / part) for part in ("layers/engine", "local"))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": path}
    for sub in ("simulate", "export", "schedule"):
        helped = subprocess.run([sys.executable, "-m", "naiko_local.tournament", sub, "--help"],
                                cwd=ROOT, env=env, text=True, capture_output=True,
                                timeout=TIMEOUT_S, check=False)
        assert helped.returncode == 0, helped.stderr[-3000:]
        unknown = {option: doc for name, args, doc in commands if name == sub
                   for option in _OPTION.findall(args) if not _lists(helped.stdout, option)}
        assert not unknown, f"documented naiko-tournament {sub} options it lacks: {unknown}"
