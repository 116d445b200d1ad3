"""The Hypothesis profiles of the suite (``tests/profile_testing.py``): ``ci`` by default,
``thorough`` with ``HYPOTHESIS_PROFILE=thorough``. Both keep Hypothesis's own defaults; the
counts that differ are set per test with :func:`profile_testing.by_profile`."""

from hypothesis import settings
from profile_testing import PROFILE, PROFILES

for _name in PROFILES:
    settings.register_profile(_name, settings())
settings.load_profile(PROFILE)
