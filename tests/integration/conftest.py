"""Fixtures shared by the integration tests: ``world`` (moto, the real handlers and both timer
state machines of ``template.yaml``, in virtual time) lives in ``test_timers_on_moto.py``."""

from test_timers_on_moto import world  # noqa: F401 - re-exported as a fixture
