"""The service's dispatch is exhaustive: every request kind of the protocol's union reaches a use
case, and a request kind without one is a type error (``mypy --strict`` on the dispatch with one
case removed), not a runtime surprise."""

from __future__ import annotations

import fcntl
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
    # the use-case modules the dispatch calls, as the package names them (a new route's module
    # is imported here without this test having to learn its name)
    modules = sorted(name for name in set(re.findall(r"\b(\w+)\.\w+\(", source))
                     if inspect.ismodule(module := getattr(usecases, name, None))
                     and module.__name__ == f"naiko_service.usecases.{name}")
    header = ("from typing import assert_never\n"
              "from naiko_service import protocol as p\n"
              f"from naiko_service.usecases import {', '.join(modules)}\n"
              "from naiko_service.usecases.base import Caller, Deps\n\n\n")
    return header + source


DROPPED = ("ListTables", "Shield")
"""The request kinds whose case is removed, one copy of the dispatch each."""

MYPY_CACHE = ROOT / ".cache" / "mypy-dispatch"
"""mypy's cache for these runs (the checked copies import the whole service): kept between runs
like any mypy cache, which re-checks every module whose source or options changed."""


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One ``mypy --strict`` run over the dispatch as it is (``full``) and a copy without each
    case of :data:`DROPPED`: each copy's error lines, keyed by copy; ``"run"`` is what the run
    printed and how it ended."""
    folder = tmp_path_factory.mktemp("dispatch")
    copies = {"full": _dispatch_source(), **{kind: _dispatch_source(drop=kind) for kind in DROPPED}}
    paths = {}
    for name, source in copies.items():
        paths[name] = folder / f"dispatch_{name.lower()}.py"
        paths[name].write_text(source)
    MYPY_CACHE.mkdir(parents=True, exist_ok=True)
    with open(MYPY_CACHE / "lock", "w") as lock:  # one run at a time on the cache (xdist)
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
             "--cache-dir", str(MYPY_CACHE), *map(str, paths.values())],
            capture_output=True, text=True, cwd=ROOT, timeout=300,
            env={"MYPYPATH": str(ROOT / "layers" / "engine"), "PATH": "/usr/bin:/bin"})
    # By file name: a copy unchanged since the last run is reported from the cache, under the
    # folder it had then.
    output = {name: "\n".join(line for line in result.stdout.splitlines()
                               if re.match(rf"(.*/)?{re.escape(path.name)}:\d+: ", line))
              for name, path in paths.items()}
    output["run"] = f"exit {result.returncode}\n{result.stdout}{result.stderr}"
    return output


def test_every_request_kind_has_a_case() -> None:
    source = inspect.getsource(usecases.dispatch)
    kinds = {model.__name__ for model in get_args(p.ClientRequest)}
    assert kinds == set(re.findall(r"case p\.(\w+)\(\):", source))
    assert "assert_never(request)" in source


def test_the_dispatch_type_checks(mypy_output: dict[str, str]) -> None:
    assert mypy_output["run"].startswith("exit 1\n"), mypy_output["run"]  # the copies' errors
    assert f"Found {len(DROPPED)} errors in {len(DROPPED)} files" in mypy_output["run"], \
        mypy_output["run"]
    assert mypy_output["full"] == "", mypy_output["run"]


@pytest.mark.parametrize("kind", DROPPED)
def test_a_request_kind_without_a_use_case_is_a_type_error(kind: str,
                                                           mypy_output: dict[str, str]) -> None:
    assert 'Argument 1 to "assert_never" has incompatible type' in mypy_output[kind], \
        mypy_output["run"]
    assert kind in mypy_output[kind]
