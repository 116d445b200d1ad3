""":mod:`naiko.codecache`: the methods :mod:`dataclasses` generates, compiled once, with the layer.

Each ``@dataclass`` writes the source of its ``__init__``, ``__repr__``, ``__eq__``,
``__hash__`` (and, frozen, ``__setattr__`` and ``__delattr__``) and compiles it with ``exec``
when its class statement runs. The engine and the service define about 190 dataclasses, nearly
all frozen: on Python 3.12 compiling those sources is about 0.7 ms a class, some 130 ms of a new
Lambda container's first frame (docs/deploy.md, "7. Cold start"), the same work on every
container, like compiling the modules themselves (which the layer's ``.pyc`` files save).

The layer's build (``layers/engine/Makefile``) runs ``python -m naiko.codecache FILE``: it
imports every module of ``naiko`` and ``naiko_service`` and writes the code objects of every
source :mod:`dataclasses` compiled on the way, keyed by that source, behind the interpreter's
bytecode magic number. At ``import naiko``, :func:`install` (when that file exists, in the
layer only) shadows ``exec`` in the :mod:`dataclasses` module alone: a source found in the file
is run from its stored code object; any other source is compiled as before. Each stored object
is what ``exec`` itself would compile from that source (``compile(source, "<string>",
"exec")``, no inherited ``__future__`` flags, as in :mod:`dataclasses`), so the classes are the
same; a file from another Python (another magic number) or an unreadable one is ignored.
Without the file (a checkout, the tests, the local stack) nothing changes.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import marshal
import os
import sys
from collections.abc import Iterable, Mapping
from types import CodeType
from typing import Any

FILE = os.path.join(os.path.dirname(__file__), "data", "dataclass_code.bin")
"""Where the layer's build writes the compiled sources (not in the repository)."""

PACKAGES = ("naiko", "naiko_service")
"""The packages whose modules :func:`build` imports."""

_installed: dict[str, CodeType] | None = None
"""The code objects in use (``{}`` until the first dataclass reads them); ``None``: none."""


def compiled(source: str) -> CodeType:
    """The code ``exec(source)`` runs when called from :mod:`dataclasses`, which has no
    ``__future__`` imports: ``exec`` of a string inherits its caller's ``__future__`` flags,
    so the wrappers here never hand a string on (this module has ``annotations``)."""
    return compile(source, "<string>", "exec", dont_inherit=True)


def _read(path: str) -> bytes | None:
    """The file's marshal data, or ``None`` when it is missing, unreadable or from another
    Python (its magic number)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return None
    magic = importlib.util.MAGIC_NUMBER
    return data[len(magic):] if data.startswith(magic) else None


def _decode(data: bytes) -> dict[str, CodeType] | None:
    try:
        codes = marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(codes, dict) or not all(
            isinstance(k, str) and isinstance(v, CodeType) for k, v in codes.items()):
        return None
    return codes


def load(path: str = FILE) -> dict[str, CodeType] | None:
    """The stored code objects of *path*, or ``None`` when it is missing, unreadable, damaged
    or from another Python (its magic number)."""
    data = _read(path)
    return None if data is None else _decode(data)


def install(path: str = FILE) -> bool:
    """Run the dataclass sources stored in *path* from their code objects (see above);
    returns whether the file is there for this Python (its magic number). The code objects
    are read at the first dataclass (about 7 ms on the dev VM), so a function that defines
    none (the authorizer) does not pay for them; a damaged file then counts as empty.
    Idempotent; :func:`uninstall` undoes it."""
    global _installed
    if _installed is not None:
        return True
    data = _read(path)
    if data is None:
        return False
    import dataclasses

    codes: dict[str, CodeType] | None = None

    def cached_exec(source: Any, globals: dict[str, Any] | None = None,
                    locals: Mapping[str, object] | None = None, /) -> None:
        global _installed
        nonlocal codes
        if codes is None:
            codes = _installed = _decode(data) or {}
        if isinstance(source, str):  # never inherit this module's __future__ flags
            source = codes.get(source) or compiled(source)
        builtins.exec(source, globals, locals)

    dataclasses.exec = cached_exec  # type: ignore[attr-defined]
    _installed = {}
    return True


def uninstall() -> None:
    """Compile every dataclass source again (the tests)."""
    global _installed
    import dataclasses

    dataclasses.__dict__.pop("exec", None)
    _installed = None


def record(modules: Iterable[str]) -> dict[str, CodeType]:
    """Import *modules* (in this interpreter: they must not be imported yet to be seen) and
    return the code of every source :mod:`dataclasses` compiled meanwhile."""
    import dataclasses

    seen: dict[str, CodeType] = {}

    def recording_exec(source: Any, globals: dict[str, Any] | None = None,
                       locals: Mapping[str, object] | None = None, /) -> None:
        if isinstance(source, str):
            source = seen.setdefault(source, compiled(source))
        builtins.exec(source, globals, locals)

    before = dataclasses.__dict__.get("exec")
    dataclasses.exec = recording_exec  # type: ignore[attr-defined]
    try:
        for name in modules:
            importlib.import_module(name)
    finally:
        if before is None:
            dataclasses.__dict__.pop("exec", None)
        else:
            dataclasses.exec = before  # type: ignore[attr-defined]
    return seen


def package_modules(packages: Iterable[str] = PACKAGES) -> list[str]:
    """Every module of *packages* (their ``.py`` files under this one's parent)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names: list[str] = []
    for package in packages:
        for folder, dirs, files in os.walk(os.path.join(root, package)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            relative = os.path.relpath(folder, root).replace(os.sep, ".")
            for file in sorted(files):
                if file == "__init__.py":
                    names.append(relative)
                elif file.endswith(".py"):
                    names.append(f"{relative}.{file[:-3]}")
    return names


def build(path: str, modules: Iterable[str] | None = None) -> int:
    """Write *path* from :func:`record` of *modules* (default: every module of
    :data:`PACKAGES`); returns how many sources it holds."""
    codes = record(package_modules() if modules is None else modules)
    with open(path, "wb") as file:
        file.write(importlib.util.MAGIC_NUMBER + marshal.dumps(codes))
    return len(codes)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m naiko.codecache FILE", file=sys.stderr)
        return 2
    count = build(args[0])
    print(f"{args[0]}: {count} dataclass sources compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
