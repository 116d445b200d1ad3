"""The suite's two depths (issue 28 item 12), chosen by the ``HYPOTHESIS_PROFILE`` environment
variable: ``ci`` (the default: what ``scripts/test`` runs) and ``thorough`` (the example counts,
fields and fault samples the suite ran before 2026-12-08, for a release or after a change to the
engine's rules).

Importing this module registers both as Hypothesis profiles and loads the one named (no
``tests/conftest.py``: beside ``tests/browser/conftest.py`` and
``tests/integration/conftest.py`` it broke collection under ``--doctest-modules``, "import
file mismatch"); a test whose cost is its size (examples, players, calls sampled) takes it
from :func:`by_profile`, which gives the ``ci`` value unless the profile is ``thorough``.
``ci`` values are chosen per test to still reach the case it names (two tables and a bubble
for hand-for-hand, three for a table to break, ...)::

    HYPOTHESIS_PROFILE=thorough scripts/test tests/service
"""

from __future__ import annotations

import os
from typing import TypeVar

from hypothesis import settings

T = TypeVar("T")

PROFILES = ("ci", "thorough")

PROFILE = os.environ.get("HYPOTHESIS_PROFILE") or "ci"
if PROFILE not in PROFILES:
    raise RuntimeError(f"HYPOTHESIS_PROFILE={PROFILE!r}: the suite's profiles are "
                       f"{', '.join(PROFILES)}")
for _name in PROFILES:  # both keep Hypothesis's defaults: the counts differ per test, below
    settings.register_profile(_name, settings())
settings.load_profile(PROFILE)


def by_profile(ci: T, thorough: T) -> T:
    """*thorough* under the ``thorough`` profile, *ci* otherwise."""
    return thorough if PROFILE == "thorough" else ci
