"""``naiko-local`` (``scripts/run``) as a newcomer meets it (issue 28): the banner's commands
work from any folder, a busy port is named with the option that moves it, no
``/tmp/naiko-local-*`` folder outlives a run (nor a failed start), and SIGINT and SIGTERM
both stop it cleanly, even when its parent left SIGINT ignored (``nohup``, CI runners)."""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _env(tmp: Path) -> dict[str, str]:
    """The stack's temporary folders go under *tmp* (``tempfile`` reads ``TMPDIR``)."""
    return {**os.environ, "PYTHONUNBUFFERED": "1", "TMPDIR": str(tmp), "PYTHONPATH":
            os.pathsep.join([str(ROOT / "layers" / "engine"), str(ROOT / "local")])}


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # what nohup and some CI runners hand down


def _leftovers(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.iterdir() if p.name.startswith("naiko-local-"))


@pytest.mark.parametrize("option,what", [("--port", "WebSocket API"),
                                         ("--management-port", "Management API"),
                                         ("--web-port", "web client"),
                                         ("--moto-port", "DynamoDB (moto)")])
def test_a_busy_port_is_named_with_the_option_that_moves_it(option: str, what: str,
                                                            tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ["--port", "0"] if option != "--port" else []
        done = subprocess.run(
            [sys.executable, "-m", "naiko_local.stack", *args, option, str(port), "--no-table"],
            cwd=ROOT, env=_env(tmp_path), capture_output=True, text=True, timeout=60,
            check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"the {what} port {port} on 127.0.0.1 is in use" in done.stderr, done.stderr
    assert f"choose another with {option} PORT" in done.stderr, done.stderr
    assert _leftovers(tmp_path) == []  # a failed start leaves no state folder


def _start(tmp: Path, preexec: Callable[[], None] | None) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "naiko_local.stack", "--port", "0", "--no-table"],
        cwd=ROOT, env=_env(tmp), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        preexec_fn=preexec)
    lines: list[str] = []
    deadline = time.monotonic() + 45
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("Ctrl-C"):
            break
    return process, "".join(lines)


def _stop(process: subprocess.Popen[str], signum: int) -> str:
    process.send_signal(signum)
    try:
        output, _ = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
    return output


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_stack_stops_cleanly_on_both_signals_even_with_sigint_ignored(
        signum: int, tmp_path: Path) -> None:
    """Started as ``nohup`` would start it (SIGINT ignored); its temporary state folder exists
    while it runs and is gone after the stop."""
    process, banner = _start(tmp_path, _ignore_sigint)
    try:
        assert "Ctrl-C" in banner, banner
        assert len(_leftovers(tmp_path)) == 1, banner
    finally:
        output = _stop(process, signum)
    assert process.returncode == 0, banner + output
    assert "Stopping" in output
    assert _leftovers(tmp_path) == []


def test_the_banner_s_commands_work_from_any_folder(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    process, banner = _start(tmp_path, None)
    try:
        client = re.search(r"^  (\S+)(?: -m naiko_client\.app)? (ws://\S+) (\S+)$", banner, re.M)
        assert client, banner
        assert Path(client.group(1)).is_absolute() or client.group(1) == "naiko-client"
        if client.group(1) != "naiko-client":
            assert Path(client.group(1)).exists()
        mint = next(line for line in banner.splitlines() if "mint_token.py" in line)
        words = shlex.split(mint)
        assert all(Path(w).is_absolute() for w in (words[0], words[1], words[3])), mint
        minted = subprocess.run(words, cwd=elsewhere, capture_output=True, text=True,
                                timeout=30, check=False)
        assert minted.returncode == 0, minted.stderr
        assert re.fullmatch(r"v1\.\S+", minted.stdout.strip()), minted.stdout
    finally:
        _stop(process, signal.SIGTERM)
    assert process.returncode == 0
