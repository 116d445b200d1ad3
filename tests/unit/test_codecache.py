"""naiko.codecache: the layer's compiled dataclass methods (issue 23 item 9, docs/deploy.md
"7. Cold start"). Each check runs in a fresh interpreter: the cache only acts on classes
defined after it is installed."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

from naiko import codecache

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "layers" / "engine"

# What each dataclass's generated methods compiled to, comparable across processes.
SIGNATURES = r"""
import dataclasses, json, sys
from naiko import codecache
path, mode = sys.argv[1:3]
misses = []
if mode == "build":  # the layer's build
    assert codecache.build(path) > 150 * 4
elif mode == "plain":  # no cache: dataclasses compiles every source itself
    for name in codecache.package_modules():
        __import__(name)
else:
    assert codecache.install(path)
    import builtins
    cached = dataclasses.exec
    def counting(source, globals=None, locals=None, /):
        cached(source, globals, locals)  # reads the file at the first one
        if source not in codecache._installed:
            misses.append(source.splitlines()[1] if source.count("\n") else source)
    dataclasses.exec = counting
    for name in codecache.package_modules():
        __import__(name)
def sig(code):
    consts = [sig(c) if hasattr(c, "co_code") else repr(c) for c in code.co_consts]
    return [code.co_code.hex(), consts, code.co_names, code.co_varnames, code.co_freevars,
            code.co_cellvars, code.co_filename, code.co_flags, code.co_name]
out = {}
for name, module in sorted(sys.modules.items()):
    if not name.startswith(("naiko.", "naiko_service.")):
        continue
    for attr, cls in sorted(vars(module).items()):
        if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == name:
            methods = {}
            for method in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__",
                           "__delattr__"):
                fn = cls.__dict__.get(method)
                fn = getattr(fn, "__wrapped__", fn)
                if hasattr(fn, "__code__") and fn.__code__.co_filename == "<string>":
                    methods[method] = sig(fn.__code__)
            out[f"{name}.{attr}"] = methods
print(json.dumps({"classes": out, "misses": misses}))
"""


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ENGINE)}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=str(ROOT), timeout=120)


def _signatures(cache: str, mode: str) -> dict[str, object]:
    done = _python("-c", SIGNATURES, cache, mode)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_cached_dataclass_methods_are_the_ones_exec_compiles_and_none_is_missed(
        tmp_path: Path) -> None:
    cache = tmp_path / "dataclass_code.bin"
    built = _signatures(str(cache), "build")
    with_cache, without = _signatures(str(cache), "use"), _signatures(str(cache), "plain")
    assert with_cache["misses"] == []  # every dataclass of the packages came from the file
    classes = with_cache["classes"]
    assert isinstance(classes, dict) and len(classes) > 150
    assert classes == without["classes"]  # the same code, method by method
    assert built["classes"] == without["classes"]  # recording changes nothing either
    assert any(methods.get("__setattr__") for methods in classes.values())  # frozen ones seen


def test_a_cache_from_another_python_or_damaged_is_ignored(tmp_path: Path) -> None:
    def source() -> str:
        return ("def __create_fn__():\n def __init__(self):\n  pass\n return __init__")

    good = importlib.util.MAGIC_NUMBER
    import marshal

    codes = {source(): codecache.compiled(source())}
    files = {"other magic": b"\x00\x00\r\n" + marshal.dumps(codes),
             "truncated": good + marshal.dumps(codes)[:20],
             "not a dict": good + marshal.dumps([1, 2]),
             "not code": good + marshal.dumps({"x": 1})}
    for label, data in files.items():
        path = tmp_path / label.replace(" ", "_")
        path.write_bytes(data)
        assert codecache.load(str(path)) is None, label
    assert codecache.install(str(tmp_path / "other_magic")) is False
    assert "exec" not in vars(dataclasses)
    assert codecache.install(str(tmp_path / "missing.bin")) is False
    fine = tmp_path / "fine.bin"
    fine.write_bytes(good + marshal.dumps(codes))
    assert codecache.load(str(fine)) == codes


def test_a_damaged_cache_counts_as_empty_and_the_classes_are_compiled(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.bin"
    damaged.write_bytes(importlib.util.MAGIC_NUMBER + b"not marshal data")
    script = ("import sys\nfrom naiko import codecache\n"
              "assert codecache.install(sys.argv[1])\n"
              "from dataclasses import dataclass\n"
              "@dataclass(frozen=True)\nclass P:\n    x: int\n"
              "assert P(1) == P(1) and repr(P(2)) == 'P(x=2)' and codecache._installed == {}\n"
              "print('ok')")
    done = _python("-c", script, str(damaged))
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_compiled_inherits_no_future_flags_of_its_own_module() -> None:
    # codecache.py has `from __future__ import annotations`; exec() in dataclasses.py does
    # not: an annotation must stay an expression, not become a string
    source = "def f(x: int) -> None:\n pass\n"
    namespace: dict[str, object] = {}
    exec(codecache.compiled(source), {}, namespace)
    assert namespace["f"].__annotations__ == {"x": int, "return": None}  # type: ignore[attr-defined]
