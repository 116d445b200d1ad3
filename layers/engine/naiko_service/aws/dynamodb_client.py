""":mod:`naiko_service.aws.dynamodb_client` holds the low-level DynamoDB client pieces every
store shares (:mod:`.dynamodb`, :mod:`.tournaments`, :mod:`.histories`): the typed item form,
an error's code, and the paged Query. It imports none of the stores, so they import it without
importing each other."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from botocore.exceptions import ClientError

Item = dict[str, dict[str, Any]]
"""A DynamoDB item in the low-level client's typed form: ``{"version": {"N": "3"}}``."""


def error_code(exc: ClientError) -> str:
    """The service's error code (``ConditionalCheckFailedException``, ...)."""
    return str(exc.response.get("Error", {}).get("Code", ""))


def paged_query(client: Any, **request: Any) -> Iterator[Item]:
    """Items of a Query, page after page (the caller stops when it has enough)."""
    while True:
        response = client.query(**request)
        yield from response.get("Items", [])
        last_key = response.get("LastEvaluatedKey")
        if not last_key:
            return
        request["ExclusiveStartKey"] = last_key
