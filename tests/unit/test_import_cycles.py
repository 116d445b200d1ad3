"""No import cycle in ``naiko_service`` (issue 22 item 2): the modules' imports, read from their
AST (top-level and function-local; imports under ``if TYPE_CHECKING:`` are type-only and
allowed), form no strongly connected component of more than one module."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "layers" / "engine"
PACKAGE = "naiko_service"

ALLOWED: frozenset[frozenset[str]] = frozenset()
"""Cycles known and being removed elsewhere, as sorted module sets; each must still exist (see
the staleness test). None since tournament-uow removed scheduled<->tournaments and
aws.dynamodb<->aws.histories."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted((ROOT / PACKAGE).rglob("*.py"))}


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import under *node*, at any depth, except those under ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _type_checking(child.test):
            for other in child.orelse:
                yield from _imports_of(other)
            continue
        yield from _imports_of(child)


def _imports_of(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    yield from _imports(node)


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules *name* imports (``from . import x`` names the module ``x``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _imports(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                if node.module:
                    base.append(node.module)
                base_name = ".".join(base)
            else:
                base_name = node.module or ""
            targets = [f"{base_name}.{alias.name}" if f"{base_name}.{alias.name}" in known
                       else base_name for alias in node.names]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imported(name, path, known) for name, path in found.items()}


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm: the components of more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(components)


def describe(component: list[str], edges: dict[str, set[str]]) -> str:
    members = set(component)
    lines = [f"cycle of {len(component)} modules:"]
    for name in component:
        inside = sorted(edges[name] & members)
        lines.append(f"  {name} -> {', '.join(inside)}")
    return "\n".join(lines)


def test_no_import_cycle_in_naiko_service() -> None:
    edges = graph()
    cycles = [c for c in strongly_connected(edges) if frozenset(c) not in ALLOWED]
    report = "\n".join(describe(c, edges) for c in cycles)
    print(report or "no import cycle")
    assert not cycles, report


def test_every_allowed_cycle_still_exists() -> None:
    """An allow-listed cycle that is gone must leave the list (so none comes back unseen)."""
    found = {frozenset(c) for c in strongly_connected(graph())}
    stale = sorted(sorted(c) for c in ALLOWED if c not in found)
    assert not stale, f"no longer cycles, remove them from ALLOWED: {stale}"


def test_the_checker_finds_function_local_cycles() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(edges) == [["a", "b", "c"]]
    source = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x\n"
                       "def f():\n    import y\n")
    assert [n.names[0].name for n in _imports(source) if isinstance(n, ast.Import)] == ["y"]
