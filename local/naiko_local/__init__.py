"""Local mode: the whole Naiko backend on one machine, without an AWS account.

The real Lambda handlers (``functions/*/app.py``), service, engine and AWS adapters run against
local stand-ins for the AWS services at the edges:

* :mod:`naiko_local.stack` -- moto's server for DynamoDB (tables created from
  ``template.yaml``), the environment the handlers' bootstrap reads, and the run command
  (``python -m naiko_local.stack``; ``scripts/run``);
* :mod:`naiko_local.gateway` -- API Gateway: a WebSocket API (authorizer, ``$connect``,
  routing by ``action``, ``$disconnect``, the 32 KB frame / 128 KB message limits) and its
  Management API (``POST/GET/DELETE /@connections/{id}``);
* :mod:`naiko_local.timers` -- Step Functions and EventBridge: timers with the same token
  semantics, and the periodic sweep;
* :mod:`naiko_local.template` -- what the stack reads from ``template.yaml``.

See ``docs/local.md``.
"""

from .gateway import Limits, LocalGateway, Routes
from .timers import LocalTimers

__all__ = ["Limits", "LocalGateway", "LocalStack", "LocalTimers", "Routes", "StackConfig"]


def __getattr__(name: str) -> object:
    # The stack imports boto3/moto lazily; keep ``import naiko_local`` light.
    if name in ("LocalStack", "StackConfig"):
        from . import stack

        return getattr(stack, name)
    raise AttributeError(name)
