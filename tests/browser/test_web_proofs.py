"""R10.2 in the web client: the page checks every card proof it receives against the deck
committed before the deal (``local/naiko_local/web/js/proofs.js``), as the terminal client does.

- vectors: proofs made in Python by :mod:`naiko.commitment` (a seeded deck) are checked by the
  page's ``verifyProof`` (WebCrypto): every real proof holds; a flipped bit in the salt, in any
  sibling, another card, another position, a path cut short or made longer, the root of another
  deck: each fails;
- the page's tracker places each card where the dealing order puts it (a real proof of a real
  card at a position the deal did not give it fails), and a page that came in mid-hand (a
  snapshot) checks what it can;
- end to end against the local stack: a hand played from the page shows ✓ on the hole cards and
  the board, at the positions the store's shuffled deck gives them;
- a proof tampered with on its way to the page (the WebSocket frame rewritten) shows the failure
  on the table, in the log and on the console.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from conftest import Shots, wait_until

pytest.importorskip("websockets")

from naiko.cards import format_card, format_cards, seeded_random, shuffled_deck  # noqa: E402
from naiko.commitment import CardProof, DeckCommitment, salts_from_seed  # noqa: E402
from naiko_local.stack import LocalStack, seat_server_bots  # noqa: E402
from test_web_client import (  # noqa: E402
    PLAYER,
    AdditionsServer,
    check_or_call,
    demo_table,
    sit_from_lobby,
)

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics to publish")

IMPORT = "const m = await import('/js/proofs.js');"


@pytest.fixture
def module_page(open_page: Any) -> Iterator[Any]:
    """A page of the web client's origin (``http://127.0.0.1``: a secure context, so WebCrypto
    is there) that can ``import('/js/proofs.js')``; no WebSocket server behind it."""
    from naiko_local.web import WebServer

    web = WebServer("127.0.0.1", 0, ws_port=9, mint=lambda p, ttl: "t").start()
    try:
        page = open_page()
        page.goto(f"{web.url}/api/config")
        assert page.evaluate("Boolean(window.isSecureContext && crypto.subtle)")
        yield page
    finally:
        web.stop()


def commitment(seed: int) -> DeckCommitment:
    return DeckCommitment(shuffled_deck(seeded_random(seed)), salts_from_seed(bytes([seed]) * 32))


def flip(hex_text: str, bit: int = 0) -> str:
    """*hex_text* with one bit flipped (bit 0: the lowest bit of the first byte)."""
    data = bytearray(bytes.fromhex(hex_text))
    data[bit // 8 % len(data)] ^= 1 << (bit % 8)
    return data.hex()


def verify_in_page(page: Any, cases: list[tuple[str, dict[str, Any]]]) -> list[bool]:
    results: list[bool] = page.evaluate(
        f"async (cases) => {{ {IMPORT} "
        "return Promise.all(cases.map(([root, proof]) => m.verifyProof(root, proof))); }",
        [list(c) for c in cases])
    return results


# -- (a) vectors -----------------------------------------------------------------------------

def test_r10_2_js_verify_proof_on_python_vectors(module_page: Any) -> None:
    deck = commitment(11)
    other = commitment(12)
    real = [deck.proof(i).to_dict() for i in range(52)]
    assert all(verify_in_page(module_page, [(deck.root, p) for p in real]))
    fixed = DeckCommitment(list(range(52)), [bytes([i]) * 32 for i in range(52)])
    assert fixed.root == "bd789070c98d4072d80d00e33781bc52880f71cad947157e3279f01251c1a5d6"
    assert verify_in_page(module_page, [(fixed.root, fixed.proof(0).to_dict()),
                                        (fixed.root, fixed.proof(50).to_dict())]) == [True, True]
    assert module_page.evaluate(  # the leaf of docs/fairness.md's example
        f"async () => {{ {IMPORT} return m.toHex(await m.leafHash(0, 0, new Uint8Array(32))); }}"
    ).startswith("b815313de09c2c34")

    bad: list[tuple[str, dict[str, Any], str]] = []
    for position in (0, 1, 5, 17, 31, 32, 47, 48, 50, 51):
        proof = deck.proof(position)
        wire: dict[str, Any] = proof.to_dict()
        for bit in (0, 7, 255):
            bad.append((deck.root, {**wire, "salt": flip(proof.salt, bit)}, f"salt bit {bit}"))
        for level in range(len(proof.path)):
            path = list(proof.path)
            path[level] = flip(path[level], 3 + level)
            bad.append((deck.root, {**wire, "path": path}, f"sibling {level}"))
        swapped = deck.cards[(position + 1) % 52]
        bad.append((deck.root, replace(proof, card=swapped).to_dict(), "another card"))
        bad.append((deck.root, {**wire, "card": format_card(swapped)}, "card text vs card_id"))
        bad.append((deck.root, {**wire, "card_id": swapped}, "card_id vs card text"))
        bad.append((deck.root, {**wire, "position": position ^ 1}, "position bit 0"))
        bad.append((deck.root, {**wire, "position": (position + 16) % 52}, "another position"))
        bad.append((deck.root, {**wire, "path": wire["path"][:-1]}, "path cut short"))
        bad.append((deck.root, {**wire, "path": [*wire["path"], wire["path"][0]]}, "path longer"))
        bad.append((deck.root, {**wire, "path": wire["path"][::-1]}, "path reversed"))
        bad.append((other.root, wire, "another deck's root"))
        bad.append((flip(deck.root, 100), wire, "root bit"))
        bad.append((deck.root.upper(), wire, "upper-case root"))
        bad.append((deck.root, {**wire, "position": str(position)}, "position as text"))
    results = verify_in_page(module_page, [(root, proof) for root, proof, _ in bad])
    accepted = [what for (_, _, what), ok in zip(bad, results, strict=True) if ok]
    assert not accepted, f"tampered proofs accepted: {accepted}"
    assert len(bad) == 204  # 10 positions x 20 or 18 cases


def test_r10_2_js_hashes_are_the_bytes_of_commitment_py(module_page: Any) -> None:
    """leafHash and nodeHash byte for byte against naiko.commitment (prefixes, encodings)."""
    from naiko.commitment import leaf_hash, node_hash

    cases = [(p, c, bytes([p ^ c]) * 32) for p, c in ((0, 0), (3, 51), (51, 50), (47, 12))]
    got = module_page.evaluate(
        f"async (cases) => {{ {IMPORT} const out = []; for (const [p, c, s] of cases) {{"
        " const salt = new Uint8Array(s.match(/../g).map((x) => parseInt(x, 16)));"
        " out.push(m.toHex(await m.leafHash(p, c, salt))); }"
        " const a = new Uint8Array(32).fill(1), b = new Uint8Array(32).fill(2);"
        " out.push(m.toHex(await m.nodeHash(a, b))); return out; }",
        [[p, c, s.hex()] for p, c, s in cases])
    want = [leaf_hash(p, c, s).hex() for p, c, s in cases]
    want.append(node_hash(bytes([1]) * 32, bytes([2]) * 32).hex())
    assert got == want


def test_r10_2_js_root_from_path_refuses_paths_of_the_wrong_length(module_page: Any) -> None:
    """rootFromPath as commitment.root_from_path on a 3-leaf tree: the right root with the
    right path, null (not some inner node) with a path too short or too long."""
    from naiko.commitment import merkle_root, node_hash, root_from_path

    a, b, c = (bytes([i]) * 32 for i in range(3))
    cases: list[tuple[bytes, int, list[bytes]]] = [
        (c, 2, [node_hash(a, b)]), (c, 2, []), (c, 2, [node_hash(a, b), a]),
        (a, 0, [b, c]), (a, 0, [b]), (b, 1, [a, c]), (b, 1, [a, c, c])]
    got = module_page.evaluate(
        f"async (cases) => {{ {IMPORT} const bytes = (x) => m.hashFromHex(x);"
        " const out = []; for (const [leaf, i, path] of cases) {"
        " const r = await m.rootFromPath(bytes(leaf), i, 3, path.map(bytes));"
        " out.push(r === null ? null : m.toHex(r)); } return out; }",
        [[leaf.hex(), i, [p.hex() for p in path]] for leaf, i, path in cases])
    want = [None if (r := root_from_path(leaf, i, 3, path)) is None else r.hex()
            for leaf, i, path in cases]
    assert got == want
    assert want[0] == want[3] == want[5] == merkle_root([a, b, c]).hex()
    assert want.count(None) == 4


# -- the tracker: positions from the dealing order --------------------------------------------

TRACK = f"""async ([messages]) => {{ {IMPORT}
  const t = new m.ProofTracker();
  const results = [];
  for (const message of messages) {{
    const r = await t.take(message, message.view, message.events || [],
                           {{ missed: !!message.missed }});
    results.push({{ proved: r.proved.map((p) => `${{p.card}}@${{p.position}}`),
                   failed: r.failed.map((f) => f.sentence) }});
  }}
  return results;
}}"""


def view(deck: DeckCommitment, hole: list[int], board: list[int], *,
         proofs: list[CardProof] | None = None) -> dict[str, Any]:
    me = {"seat_index": 0, "player_id": PLAYER, "in_hand": True, "cards": format_cards(hole)}
    hand: dict[str, Any] = {"number": 1, "button": 1, "board": format_cards(board),
                            "commitment": deck.root, "complete": False}
    if proofs is not None:
        hand["proofs"] = [p.to_dict() for p in proofs]
    return {"config": {"variant": "NLHE"}, "seat_index": 0, "hand": hand,
            "seats": [me, {"seat_index": 1, "player_id": "b", "in_hand": True, "cards": None},
                      {"seat_index": 2, "player_id": "c", "in_hand": True, "cards": None}]}


def update(deck: DeckCommitment, events: list[dict[str, Any]], positions: list[int],
           hole: list[int], board: list[int]) -> dict[str, Any]:
    return {"type": "update", "events": events, "view": view(deck, hole, board),
            "proofs": [deck.proof(p).to_dict() for p in positions]}


def test_r10_2_tracker_checks_the_dealing_order(module_page: Any) -> None:
    deck = commitment(5)
    c = list(deck.cards)
    # seats dealt 2, 0, 1: the viewer (seat 0) holds positions 2 and 3; the flop is 6, 7, 8
    started = {"kind": "hand_started", "hand_number": 1, "button": 1, "seats_dealt": [2, 0, 1]}
    deal = update(deck, [started, {"kind": "deck_committed", "root": deck.root},
                         {"kind": "hole_cards", "seat_index": 0,
                          "cards": format_cards([c[2], c[3]])}], [2, 3], [c[2], c[3]], [])
    flop = update(deck, [{"kind": "board_dealt", "street": "flop",
                          "cards": format_cards(c[6:9])}], [6, 7, 8], [c[2], c[3]], c[6:9])
    good = module_page.evaluate(TRACK, [[deal, flop]])
    assert good == [{"proved": [f"{format_card(c[2])}@2", f"{format_card(c[3])}@3"], "failed": []},
                    {"proved": [f"{format_card(p)}@{i}" for i, p in zip((6, 7, 8), c[6:9],
                                                                         strict=True)],
                     "failed": []}]
    # The server deals the viewer the first two cards of the deck: real proofs, wrong place.
    wrong = update(deck, [started, {"kind": "hole_cards", "seat_index": 0,
                                    "cards": format_cards([c[0], c[1]])}],
                   [0, 1], [c[0], c[1]], [])
    (result,) = module_page.evaluate(TRACK, [[wrong]])
    assert result["proved"] == [] and len(result["failed"]) == 2
    assert "the dealing order puts it at 2" in result["failed"][0]
    # A turn card from deeper in the deck (position 10 where 9 is next): real proof, fails.
    turn = update(deck, [{"kind": "board_dealt", "street": "turn", "cards": format_card(c[10])}],
                  [10], [c[2], c[3]], [*c[6:9], c[10]])
    results = module_page.evaluate(TRACK, [[deal, flop, turn]])
    assert results[2]["proved"] == [] and "puts it at 9" in results[2]["failed"][0]


def test_r10_2_tracker_in_a_snapshot_checks_what_it_can(module_page: Any) -> None:
    """A page that opens mid-hand has no hand_started: it checks the hashes, that each proof is
    of a card it is shown, no position twice, and the board in deck order."""
    deck = commitment(6)
    c = list(deck.cards)
    hole, board = [c[4], c[5]], c[6:9]
    fine = {"type": "snapshot", "view": view(deck, hole, board, proofs=[
        deck.proof(p) for p in (4, 5, 6, 7, 8)])}
    (result,) = module_page.evaluate(TRACK, [[fine]])
    assert len(result["proved"]) == 5 and result["failed"] == []
    # The same snapshot again (a reconnection): nothing new to log; then once more with one
    # proof doctored: a card proved before fails now, and the same failure is said once.
    again = json.loads(json.dumps(fine))
    doctored = json.loads(json.dumps(fine))
    doctored["view"]["hand"]["proofs"][1]["salt"] = flip(deck.proof(5).salt, 1)
    results = module_page.evaluate(TRACK, [[fine, again, doctored, doctored]])
    assert results[1] == {"proved": [], "failed": []}
    assert results[2]["proved"] == [] and len(results[2]["failed"]) == 1
    assert f"for {format_card(c[5])} at position 5" in results[2]["failed"][0]
    assert results[3] == {"proved": [], "failed": []}
    stranger = {"type": "snapshot", "view": view(deck, hole, board, proofs=[
        deck.proof(p) for p in (4, 5, 6, 7, 8, 20)])}
    (result,) = module_page.evaluate(TRACK, [[stranger]])
    assert len(result["failed"]) == 1 and "not shown" in result["failed"][0]
    backwards = {"type": "snapshot", "view": view(deck, hole, [c[8], c[7], c[6]], proofs=[
        deck.proof(p) for p in (4, 5, 8, 7, 6)])}
    (result,) = module_page.evaluate(TRACK, [[backwards]])
    assert result["failed"] and "not after" in result["failed"][0]
    no_commitment: dict[str, Any] = {"type": "snapshot", "view": view(deck, hole, board, proofs=[
        deck.proof(4)])}
    no_commitment["view"]["hand"]["commitment"] = None
    (result,) = module_page.evaluate(TRACK, [[no_commitment]])
    assert "no deck commitment" in result["failed"][0]


# -- (b) end to end: a hand played from the page ----------------------------------------------

PROOF_STATES = """els => els.map(e => [e.dataset.card, e.dataset.proof || '',
                                        e.dataset.position || ''])"""


def test_r10_2_a_hand_from_the_page_shows_proved_cards(stack: LocalStack, open_page: Any,
                                                       shots: Shots) -> None:
    table = demo_table(stack, "NLHE", 6, (1, 2), bots=True)
    seat_server_bots(stack, table.table_id, 2, buy_in=200)
    page = open_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    sit_from_lobby(page, stack, table.table_id)
    deadline = time.monotonic() + 45
    while True:
        mine = page.locator(".seat.me .card.face").evaluate_all(PROOF_STATES)
        board = page.locator(".board .card.face").evaluate_all(PROOF_STATES)
        number = page.locator(".board").get_attribute("data-hand")
        state = stack.service.deps.tables.load(table.table_id).state
        if (len(board) >= 3 and len(mine) == 2 and state.hand is not None
                and str(state.hand.number) == number
                and all(s == "proved" for _, s, _ in mine + board)):
            break
        assert not page.locator(".proof-alert").count(), page.locator(".proof-alert").inner_text()
        check_or_call(page)
        assert time.monotonic() < deadline, f"no proved flop within 45 s: {mine} {board}"
        time.sleep(0.1)
    shuffled = [format_card(card) for card in state.hand.shuffled]
    for card, _, position in mine + board:  # where the store's shuffled deck has them
        assert shuffled.index(card) == int(position), (card, position)
    title = page.locator(".seat.me .card.face .proof-mark").first.get_attribute("title")
    assert re.fullmatch(r"proved at position \d+ against commitment [0-9a-f]{16}…", title)
    assert int(page.locator(".proof-count").get_attribute("data-proved")) >= 5
    log = page.locator("ol.log li").all_inner_texts()
    assert any(line.startswith("You are dealt") and "✓ proved" in line for line in log), log
    assert not page.locator(".proof-alert").count() and not errors
    shots(page, "proved")


# -- (c) a tampered proof ---------------------------------------------------------------------

def test_r10_2_a_tampered_proof_shows_as_a_failure(stack: LocalStack, open_page: Any,
                                                   shots: Shots) -> None:
    """The page's WebSocket is routed through Playwright; the first frame carrying the
    proofs of the viewer's hole cards gets one bit of one sibling hash flipped."""
    table = demo_table(stack, "NLHE", 6, (1, 2), bots=True)
    seat_server_bots(stack, table.table_id, 2, buy_in=200)
    page = open_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    tampered: list[str] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            text = message if isinstance(message, str) else message.decode()
            data = json.loads(text)
            holes = [e for e in data.get("events") or [] if e.get("kind") == "hole_cards"]
            if not tampered and holes and data.get("proofs"):
                proof = data["proofs"][0]
                proof["path"][2] = flip(proof["path"][2], 9)
                tampered.append(proof["card"])
                text = json.dumps(data)
            ws.send(text)

        server.on_message(from_server)

    page.route_web_socket(re.compile(r"^ws://"), route)
    sit_from_lobby(page, stack, table.table_id)
    page.wait_for_selector(".proof-alert")
    assert tampered
    bad = page.locator(f".seat.me .card.face[data-card='{tampered[0]}']")
    assert bad.get_attribute("data-proof") == "failed"
    assert bad.locator(".proof-mark").inner_text() == "✗"
    alert = page.locator(".proof-alert").inner_text()
    assert "Deck check FAILED" in alert and f"Card proof FAILED for {tampered[0]}" in alert
    other = page.locator(f".seat.me .card.face:not([data-card='{tampered[0]}'])")
    wait_until(lambda: other.get_attribute("data-proof") == "proved", what="the other card")
    log = page.locator("ol.log li").all_inner_texts()
    assert any(line.startswith("✗ Card proof FAILED") for line in log), log
    assert any("Card proof FAILED" in line for line in console), console
    shots(page, "tampered")


def test_r10_2_a_doctored_update_fed_to_the_app_shows_the_failure(open_page: Any) -> None:
    """Against a stand-in server that goes quiet once the page sits down, an update is handed
    to the page's own handler (``window.naikoApp.onMessage``, as a socket message would be): a
    real commitment, the viewer dealt positions 0 and 1, the proof of the second card with one
    bit of its salt flipped. The page re-draws by itself once the check ends: the first card
    proved, the second failed, the alert on the table."""
    from naiko_local.web import WebServer

    deck = commitment(9)
    c = list(deck.cards)
    with AdditionsServer() as fake:
        web = WebServer("127.0.0.1", 0, ws_port=fake.port, mint=lambda p, ttl: "t").start()
        try:
            page = open_page()
            page.goto(f"{web.url}?player={PLAYER}")
            page.locator("[data-action=play][data-table=tfake]").click()
            page.wait_for_selector(".seat.me .card.face")
            state = page.evaluate("({view: naikoApp.view, version: naikoApp.version})")
            view = state["view"]
            view["hand"]["commitment"] = deck.root
            view["seats"][0]["cards"] = format_cards(c[:2])
            doctored = deck.proof(1).to_dict()
            doctored["salt"] = flip(str(doctored["salt"]), 77)
            message = {"type": "update", "table_id": "tfake", "version": state["version"] + 1,
                       "events": [{"kind": "hand_started", "hand_number": 1, "button": 1,
                                   "seats_dealt": [0, 1]},
                                  {"kind": "deck_committed", "root": deck.root},
                                  {"kind": "hole_cards", "seat_index": 0,
                                   "cards": format_cards(c[:2]), "private_to": 0}],
                       "view": view, "proofs": [deck.proof(0).to_dict(), doctored]}
            page.evaluate("(m) => naikoApp.onMessage(m)", message)
            page.wait_for_selector(".proof-alert")
            marks = page.locator(".seat.me .card.face").evaluate_all(PROOF_STATES)
            assert marks == [[format_card(c[0]), "proved", "0"],
                             [format_card(c[1]), "failed", "1"]]
            assert f"Card proof FAILED for {format_card(c[1])} at position 1" in \
                page.locator(".proof-alert").inner_text()
        finally:
            web.stop()
