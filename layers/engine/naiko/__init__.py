""":mod:`naiko` is the Naiko poker engine: pure, standard-library-only rules for No-Limit
Hold'em, Pot-Limit Omaha and Naiko mode.

Import what you need from the submodules: :mod:`naiko.engine` (``apply``, ``legal_actions``),
:mod:`naiko.state`, :mod:`naiko.commands`, :mod:`naiko.views`, :mod:`naiko.evaluator`,
:mod:`naiko.cards`, :mod:`naiko.phh`. Importing the package itself loads nothing else, so a
Lambda cold start pays only for what it uses.
"""

__version__ = "0.1.0"

from . import codecache as _codecache

_codecache.install()  # the layer's compiled dataclass methods, when built (naiko.codecache)
