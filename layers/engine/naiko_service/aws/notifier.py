""":mod:`naiko_service.aws.notifier` sends push notifications through Amazon SNS mobile push
(issue 25, item 4): :class:`SnsNotifier` implements :class:`~naiko_service.ports.Notifier` on
the deployment's platform applications (the template's ``ApnsPlatformApplicationArn``,
``ApnsSandboxPlatformApplicationArn`` and ``FcmPlatformApplicationArn``; ``docs/deploy.md``,
"Push notifications", says how to make them), and :class:`NoNotifier` is what a deployment
without any of them gets: notifications off, ``register_device`` refused
(``push_unavailable``).

* One **platform endpoint per registered device** (``CreatePlatformEndpoint`` on the
  platform's application, at ``register_device``): SNS answers the existing endpoint for a
  token it knows; one it disabled (the push service refused the token once) is enabled again
  with the token given (``SetEndpointAttributes``), since the app just proved it valid.
* **Publish** sends ``MessageStructure=json``: a ``default`` text and the payload of the
  endpoint's platform (``APNS``/``APNS_SANDBOX``: an ``aps`` alert; ``GCM``: an FCM HTTP v1
  message), nothing but the notification's title, body, kind and ids.
* An endpoint SNS disabled (``EndpointDisabled``) or deleted (``NotFound``) raises
  :class:`~naiko_service.ports.EndpointDisabled`: the service forgets the device.

Takes a low-level SNS client (``botocore``'s, built lazily by the caller).
"""

from __future__ import annotations

import json
import re
from typing import Any

from botocore.exceptions import ClientError

from ..ports import Device, EndpointDisabled, Notification, Platform, PushUnavailable
from .dynamodb_client import error_code

SNS_KEYS: dict[Platform, str] = {Platform.APNS: "APNS", Platform.APNS_SANDBOX: "APNS_SANDBOX",
                                 Platform.FCM: "GCM"}
"""The key of each platform's payload in a ``MessageStructure=json`` message (SNS calls FCM
``GCM``)."""

_EXISTING = re.compile(r"Endpoint (arn:[^ ]+) already exists")
"""SNS's answer to a token it has under other attributes names the endpoint: AWS's own
registration pseudo-code reads the ARN from it (there is no other way to learn it)."""


def payload(platform: Platform, notification: Notification) -> str:
    """The ``Message`` of a ``MessageStructure=json`` publish to a *platform* endpoint.

    >>> from naiko_service.ports import NotificationKind
    >>> n = Notification(NotificationKind.TURN, "Your turn", "At Demo", {"table_id": "t1"})
    >>> json.loads(json.loads(payload(Platform.APNS, n))["APNS"])["aps"]["alert"]
    {'title': 'Your turn', 'body': 'At Demo'}
    """
    data = {"kind": str(notification.kind), **notification.data}
    if platform is Platform.FCM:
        body: dict[str, Any] = {"fcmV1Message": {"message": {
            "notification": {"title": notification.title, "body": notification.body},
            "data": data,
            "android": {"collapse_key": str(notification.kind)}}}}
    else:
        body = {"aps": {"alert": {"title": notification.title, "body": notification.body},
                        "sound": "default", "thread-id": str(notification.kind)},
                "naiko": data}
    return json.dumps({"default": notification.body,
                       SNS_KEYS[platform]: json.dumps(body, ensure_ascii=False)},
                      ensure_ascii=False)


class SnsNotifier:
    """:class:`~naiko_service.ports.Notifier` on SNS mobile push.

    :param client: A low-level SNS client.
    :param applications: The platform application ARN of each platform served (a platform
        without one is refused at ``register_device``).
    """

    def __init__(self, client: Any, applications: dict[Platform, str]):
        self.client = client
        self.applications = {platform: arn for platform, arn in applications.items() if arn}

    def platforms(self) -> frozenset[Platform]:
        return frozenset(self.applications)

    def endpoint(self, platform: Platform, token: str, player_id: str) -> str:
        """``CreatePlatformEndpoint`` (idempotent for a token SNS knows), then the endpoint
        enabled with this token (``SetEndpointAttributes``). No player id goes to SNS.

        :raises PushUnavailable: No application for *platform*.
        """
        application = self.applications.get(platform)
        if application is None:
            raise PushUnavailable(str(platform))
        try:
            arn = str(self.client.create_platform_endpoint(
                PlatformApplicationArn=application, Token=token)["EndpointArn"])
        except ClientError as exc:
            found = _EXISTING.search(str(exc.response.get("Error", {}).get("Message", "")))
            if error_code(exc) != "InvalidParameter" or found is None:
                raise
            arn = found.group(1)
        self.client.set_endpoint_attributes(EndpointArn=arn,
                                            Attributes={"Token": token, "Enabled": "true"})
        return arn

    def publish(self, device: Device, notification: Notification) -> None:
        """``Publish`` to the device's endpoint, ``MessageStructure=json``.

        :raises EndpointDisabled: SNS disabled the endpoint (or it is gone).
        """
        try:
            self.client.publish(TargetArn=device.endpoint, MessageStructure="json",
                                Message=payload(device.platform, notification))
        except ClientError as exc:
            if error_code(exc) in ("EndpointDisabled", "NotFound"):
                raise EndpointDisabled(device.endpoint) from exc
            raise

    def forget(self, device: Device) -> None:
        """``DeleteEndpoint`` (idempotent)."""
        self.client.delete_endpoint(EndpointArn=device.endpoint)


class NoNotifier:
    """A deployment without platform applications: notifications are off."""

    def platforms(self) -> frozenset[Platform]:
        return frozenset()

    def endpoint(self, platform: Platform, token: str, player_id: str) -> str:
        raise PushUnavailable(str(platform))

    def publish(self, device: Device, notification: Notification) -> None:
        raise PushUnavailable(str(device.platform))

    def forget(self, device: Device) -> None:
        return None
