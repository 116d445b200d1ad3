"""The service's AWS clients (``naiko_service.bootstrap``, docs/deploy.md "7. Cold start"):
botocore's, with the settings every call's worst case is counted from, and the ones a frame
may not need built only on first use, once."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from naiko_service import bootstrap

ENGINE = Path(__file__).resolve().parents[2] / "layers" / "engine"


def test_a_client_is_botocores_with_the_settings_and_boto3_is_never_imported() -> None:
    script = (
        "import sys\n"
        "from naiko_service import bootstrap\n"
        "client = bootstrap.aws_client('dynamodb', region_name='eu-west-1')\n"
        "c = client.meta.config\n"
        "print(type(client).__module__.split('.')[0], 'boto3' in sys.modules,\n"
        "      c.connect_timeout, c.read_timeout, c.retries['total_max_attempts'],\n"
        "      c.max_pool_connections)\n")
    env = {"PYTHONPATH": str(ENGINE), "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "x",
           "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    settings = bootstrap.BOTO_SETTINGS
    assert out == ["botocore", "False", str(settings["connect_timeout"]),
                   str(settings["read_timeout"]), str(settings["retries"]["total_max_attempts"]),
                   str(settings["max_pool_connections"])]


def test_a_lazy_client_is_built_on_first_use_once_even_from_many_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[tuple[str, dict[str, Any]]] = []
    gate = threading.Barrier(8)

    class Fake:
        def send_message(self, **kwargs: Any) -> str:
            return "sent"

    def fake_client(service: str, **options: Any) -> Fake:
        built.append((service, options))
        return Fake()

    monkeypatch.setattr(bootstrap, "aws_client", fake_client)
    lazy = bootstrap.LazyClient("sqs", endpoint_url="http://queue")
    assert not lazy.built and built == []  # nothing built by making it

    results: list[str] = []

    def use() -> None:
        gate.wait()
        results.append(lazy.send_message(QueueUrl="q"))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ["sent"] * 8
    assert built == [("sqs", {"endpoint_url": "http://queue"})] and lazy.built
