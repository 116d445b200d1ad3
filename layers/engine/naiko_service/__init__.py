""":mod:`naiko_service` is the table service: use cases written once against ports
(:mod:`naiko_service.ports`), with in-memory adapters (:mod:`naiko_service.memory`) and AWS
adapters (:mod:`naiko_service.aws`). Lambda handlers in ``functions/`` and the local stack
call :mod:`naiko_service.usecases` through :mod:`naiko_service.bootstrap`.
"""

import naiko as _naiko  # noqa: F401  (first: its dataclass code cache, naiko.codecache)
