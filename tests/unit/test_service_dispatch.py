"""The service's dispatch is exhaustive: every request kind of the protocol's union reaches a use
case, and a request kind without one is a type error (``mypy --strict`` on the dispatch with one
case removed), not a runtime surprise."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import get_args

import pytest
from naiko_service import protocol as p
from naiko_service import usecases

ROOT = Path(__file__).resolve().parents[2]


def _dispatch_source(drop: str | None = None) -> str:
    """The real ``dispatch`` as a module of its own, without the case of *drop* if given."""
    source = textwrap.dedent(inspect.getsource(usecases.dispatch))
    if drop is not None:
        pattern = rf"        case p\.{drop}\(\):\n            [^\n]+\n"
        source, removed = re.subn(pattern, "", source)
        assert removed == 1, f"no case for {drop}"
    header = ("from typing import assert_never\n"
              "from naiko_service import protocol as p\n"
              "from naiko_service.usecases import cash, connections, lobby, play, private, room\n"
              "from naiko_service.usecases import histories, push, tournaments\n"
              "from naiko_service.usecases import chat\n"
              "from naiko_service.usecases.base import Caller, Deps\n\n\n")
    return header + source


def _mypy(source: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    module = tmp_path / "dispatch_copy.py"
    module.write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / "cache"), str(module)],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
        env={"MYPYPATH": str(ROOT / "layers" / "engine"), "PATH": "/usr/bin:/bin"})


def test_every_request_kind_has_a_case() -> None:
    source = inspect.getsource(usecases.dispatch)
    kinds = {model.__name__ for model in get_args(p.ClientRequest)}
    assert kinds == set(re.findall(r"case p\.(\w+)\(\):", source))
    assert "assert_never(request)" in source


def test_the_dispatch_type_checks(tmp_path: Path) -> None:
    result = _mypy(_dispatch_source(), tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("kind", ["ListTables", "Shield"])
def test_a_request_kind_without_a_use_case_is_a_type_error(kind: str, tmp_path: Path) -> None:
    result = _mypy(_dispatch_source(drop=kind), tmp_path)
    assert result.returncode == 1
    assert 'Argument 1 to "assert_never" has incompatible type' in result.stdout
    assert kind in result.stdout
