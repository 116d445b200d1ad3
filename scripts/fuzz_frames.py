"""Fuzz the game handler with hostile WebSocket frames (issue 10) and print what they got.

The harness of ``tests/fuzz_testing.py`` (the one ``tests/unit/test_fuzz_frames.py`` runs for a
few hundred examples per strategy) run for a benchmark-size number of frames, mixed over the
four strategies (raw bytes, arbitrary JSON and text, deep nesting, mutated requests of every
route; each frame's strategy picked at random; raw bytes include a frame without a body now and
then). Frames are sent in sessions on one stack (the NAIKO table mid-hand, the fuzzing
connections; a fresh stack every ``--session`` frames), so request ids are reused across frames,
replays happen, the clock moves and the hands go on between frames.

Printed: the frames sent (per strategy), the replies by type and error code, the crashes (an
exception escaped the handler) with the first reproducing frames, the frames with other than one
reply, the frames whose ``error`` changed state, and any other property violation. A failing
frame is also re-sent alone on a fresh stack, to say whether it reproduces without its session.
Exit status 1 on any failure::

    .venv/bin/python scripts/fuzz_frames.py                    # 10,000 frames, seed 0
    .venv/bin/python scripts/fuzz_frames.py --frames 2000 --seed 3 --session 50
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT / "layers" / "engine", ROOT / "tests"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from fuzz_testing import Frame, FuzzStack, Outcome, mixed_frames  # noqa: E402
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402


class Run:
    """Frames sent so far, in sessions of *session* frames on a fresh stack each."""

    def __init__(self, session: int):
        self.session = session
        self.outcomes: list[Outcome] = []
        self._stack: FuzzStack | None = None
        self._in_session = 0

    def send(self, frame: Frame) -> None:
        if self._stack is None or self._in_session >= self.session:
            self.close()
            self._stack = FuzzStack().__enter__()
            self._in_session = 0
        self._in_session += 1
        self.outcomes.append(self._stack.send(frame))

    def close(self) -> None:
        if self._stack is not None:
            self._stack.__exit__()
            self._stack = None


def fuzz(frames: int, seed_value: int, session: int) -> list[Outcome]:
    """Send *frames* frames drawn from the four strategies
    (:func:`fuzz_testing.mixed_frames`); never raises for a failing frame (the outcomes hold
    the failures)."""
    run = Run(session)

    @seed(seed_value)
    @settings(max_examples=frames, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(frame=mixed_frames())
    def drive(frame: Frame) -> None:
        if len(run.outcomes) < frames:
            run.send(frame)

    try:
        drive()
    finally:
        run.close()
    return run.outcomes


def alone(frame: Frame) -> bool:
    """Whether *frame* fails on a fresh stack too."""
    with FuzzStack() as stack:
        return not stack.send(frame).ok


def root_cause(trace: str, lines: int = 8) -> list[str]:
    """The end of the first traceback of a chain (the handler re-raises the original as
    ``UnexpectedError``: the original is what to look at)."""
    first = trace.split("\nThe above exception was the direct cause")[0]
    first = first.split("\nDuring handling of the above exception")[0]
    return first.strip().splitlines()[-lines:]


def report(outcomes: Sequence[Outcome], show: int, seconds: float, seed_value: int,
           session: int) -> int:
    """Print the summary; the number of failing frames."""
    print(f"fuzz_frames: {len(outcomes)} frames sent (seed {seed_value}, sessions of {session} "
          f"frames on a fresh stack) in {seconds:.1f} s")
    kinds = Counter(o.frame.kind for o in outcomes)
    print("frames by strategy: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    types = Counter(o.replies[0]["type"] if len(o.replies) == 1 else o.reply_kind
                    for o in outcomes)
    print("replies by type: " + ", ".join(f"{k} {n}" for k, n in types.most_common()))
    codes = Counter(o.replies[0].get("code") for o in outcomes
                    if len(o.replies) == 1 and o.replies[0]["type"] == "error")
    print("errors by code:")
    for code, count in codes.most_common():
        print(f"  {code:<24} {count:>6}")
    by_kind = Counter((o.frame.kind, o.reply_kind) for o in outcomes)
    print("replies by strategy:")
    for kind in sorted(kinds):
        row = sorted(((n, r) for (k, r), n in by_kind.items() if k == kind), reverse=True)
        print(textwrap.fill(", ".join(f"{r} {n}" for n, r in row), width=100,
                            initial_indent=f"  {kind:<8} ", subsequent_indent=" " * 11))

    crashes = [o for o in outcomes if o.crash is not None]
    wrong_count = [o for o in outcomes if len(o.replies) != 1]
    changed = [o for o in outcomes if o.state_changed_on_error]
    other = [o for o in outcomes if o.violations and o.crash is None and o not in wrong_count
             and o not in changed]
    for title, failing in (("crashes", crashes), ("frames with != 1 reply", wrong_count),
                           ("frames whose error changed state", changed),
                           ("frames with other property violations", other)):
        print(f"{title}: {len(failing)}")
        for outcome in failing[:show]:
            number = outcomes.index(outcome)
            print(f"  #{number} {outcome.frame.show()}")
            print(f"     fails alone on a fresh stack: {alone(outcome.frame)}")
            for violation in outcome.violations[:3]:
                print(f"     {violation[:500]}")
            if outcome.crash:
                print("     " + "\n     ".join(root_cause(outcome.crash)))
    failures = sum(1 for o in outcomes if not o.ok)
    print(f"failing frames: {failures}")
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=10_000, help="frames to send (10,000)")
    parser.add_argument("--seed", type=int, default=0, help="hypothesis seed (0)")
    parser.add_argument("--session", type=int, default=250,
                        help="frames per session before a fresh stack (250)")
    parser.add_argument("--show", type=int, default=5,
                        help="reproducing frames shown per kind of failure (5)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    outcomes = fuzz(args.frames, args.seed, args.session)
    failures = report(outcomes, args.show, time.perf_counter() - started, args.seed,
                      args.session)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
