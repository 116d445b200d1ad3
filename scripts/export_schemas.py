"""Write the JSON Schemas of the WebSocket protocol, generated from the pydantic models.

``docs/schemas/requests.schema.json`` describes every client request (one ``oneOf`` branch per
``action``), ``docs/schemas/messages.schema.json`` every server message (one per ``type``).
Both come from :func:`naiko_service.protocol.json_schemas`; the output is deterministic (sorted
keys, 2-space indent, a final newline), so the committed files can be checked for drift::

    python scripts/export_schemas.py           # rewrite the files
    python scripts/export_schemas.py --check   # exit 1 if a committed file is out of date

``tests/unit/test_protocol.py`` runs ``--check``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "docs" / "schemas"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
TITLES = {
    "requests": "Naiko WebSocket client request (client -> server), selected by `action`",
    "messages": "Naiko WebSocket server message (server -> client), selected by `type`",
}

if str(ROOT / "layers" / "engine") not in sys.path:
    sys.path.insert(0, str(ROOT / "layers" / "engine"))


def render() -> dict[Path, str]:
    """The text of every schema file, keyed by its path."""
    from naiko_service.protocol import json_schemas

    files: dict[Path, str] = {}
    for name, schema in sorted(json_schemas().items()):
        document: dict[str, Any] = {"$schema": DRAFT, "title": TITLES[name], **schema}
        files[SCHEMA_DIR / f"{name}.schema.json"] = (
            json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare only; exit 1 if a committed schema is out of date")
    args = parser.parse_args(argv)
    files = render()
    if args.check:
        stale = [path for path, text in files.items()
                 if not path.is_file() or path.read_text(encoding="utf-8") != text]
        for path in stale:
            print(f"out of date: {path.relative_to(ROOT)} "
                  "(run: python scripts/export_schemas.py)", file=sys.stderr)
        return 1 if stale else 0
    SCHEMA_DIR.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
