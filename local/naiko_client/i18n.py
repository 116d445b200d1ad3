""":mod:`naiko_client.i18n`: the terminal client's texts in English, Polish, Portuguese,
Vietnamese and Romanian (``--lang``; docs/client.md, "Languages").

The English text is the key, as in gettext: the code writes ``tr("Waiting for {actor} to act",
actor=...)`` and each catalogue maps that text to its own, with the same named parameters
(``tests/unit/test_client_i18n.py`` fails when a catalogue lacks a key the code looks up, has
one more, or differs in its parameters). What you type stays the same in every language (``f``,
``x``, ``c``, ``peek``, ``shield``…): only what the client prints is translated. The game's
terms are the rule texts' own (Destellos, Karuzela, Krótka Kotwica, Escudo do Selo…).

The language is the process's (one terminal, one player): :func:`set_language` once at start
(``--lang``, else the locale's: ``naiko_client.app.language_of``). The texts live here (the
prompt, the waiting lines) and in :mod:`~naiko_client.i18n_events` (event sentences),
:mod:`~naiko_client.i18n_screens` (the table, lobby, tournaments, help) and
:mod:`~naiko_client.i18n_statuses` (the client's own statuses and refusals), merged below.
"""

from __future__ import annotations

from .i18n_events import TEXTS as EVENT_TEXTS
from .i18n_screens import TEXTS as SCREEN_TEXTS
from .i18n_statuses import TEXTS as STATUS_TEXTS

LANGUAGES = ("en", "pl", "pt", "vi", "ro")

_current = "en"


def served(tag: str | None) -> str | None:
    """The served language for a tag (``"pt_BR.UTF-8"`` -> ``"pt"``), or ``None``.

    >>> served("pt_BR.UTF-8"), served("pl"), served("de_DE"), served(None)
    ('pt', 'pl', None, None)
    """
    if not tag:
        return None
    base = tag.split(".", 1)[0].replace("_", "-").split("-", 1)[0].lower()
    return base if base in LANGUAGES else None


def set_language(lang: str) -> str:
    """Speak *lang* from now on (English when it is not served); returns the one served."""
    global _current
    _current = served(lang) or "en"
    return _current


def language() -> str:
    return _current


def tr(english: str, **params: object) -> str:
    """*english* in the current language, its ``{name}`` parameters filled from *params*."""
    text = CATALOGUES[_current].get(english, english) if _current != "en" else english
    return text.format_map(params) if params else text


POWERS = {
    "pl": {"Peek": "Ukradkowe Spojrzenie", "Sleeve Swap": "Zamiana w Rękawie",
           "Short Anchor": "Krótka Kotwica", "Seal Shield": "Pieczęć Ochronna"},
    "pt": {"Peek": "Olhar Furtivo", "Sleeve Swap": "Troca de Manga",
           "Short Anchor": "Âncora Curta", "Seal Shield": "Escudo do Selo"},
    "vi": {"Peek": "Nhìn Trộm", "Sleeve Swap": "Đổi Bài Trong Tay Áo",
           "Short Anchor": "Mỏ Neo Ngắn", "Seal Shield": "Lá Chắn Phong Ấn"},
    "ro": {"Peek": "Privire Furișă", "Sleeve Swap": "Schimb din Mânecă",
           "Short Anchor": "Ancora Scurtă", "Seal Shield": "Sigiliul Protector"},
}

_KEYS = (
    "Waiting for the table...",
    "SEAT OFFERED {clock}: a seat is held for you: `take` (or `take N`) to sit down",
    "`shield` (1 destello) or `pass`",
    "`pass` (you cannot shield)",
    "SHIELD WINDOW {clock}: {attacker}'s Short Anchor aims at you: {answer}",
    "Waiting for {actor} to act",
    "No more hands: the tournament is over (`tournaments` for the lobby's, `q` to quit).",
    "No more hands: the table is closed (`q` to quit).",
    "No new hand while the table is paused.",
    "Hand #{number} is over; the next one starts shortly.",
    "The tournament starts: the first hand is dealt in {clock}.",
    "The tournament starts: the first hand is dealt shortly.",
    "Waiting for players ({seated} seated); the first hand starts with {needed}.",
    "YOUR TURN",
    "to call {amount}",
    "raise to {lo}..{hi}",
    "bet {lo}..{hi}",
    "ANCHORED: your raises are capped",
    "f fold",
    "x check",
    "c call {amount}",
    "b N bet ({lo}-{hi})",
    "r N raise to N ({lo}-{hi})",
    "a all-in ({amount})",
    "powers: ",
    "Commands (type one, then Enter):",
    "Peek", "Sleeve Swap", "Short Anchor", "Seal Shield",
)
"""Every text the client looks up, in English (the reference, and the keys)."""

_TEXTS = {
    "pl": (
        "Czekamy na stół...",
        "MIEJSCE DLA CIEBIE {clock}: miejsce jest zarezerwowane: `take` (lub `take N`), by usiąść",
        "`shield` (1 Destello) lub `pass`",
        "`pass` (nie możesz użyć Pieczęci)",
        "OKNO PIECZĘCI {clock}: Krótka Kotwica gracza {attacker} celuje w ciebie: {answer}",
        "Czekamy, aż {actor} wykona akcję",
        "Koniec rozdań: turniej się zakończył (`tournaments` – lista turniejów, `q` – wyjście).",
        "Koniec rozdań: stół jest zamknięty (`q` – wyjście).",
        "Żadnego nowego rozdania, gdy stół jest wstrzymany.",
        "Rozdanie #{number} się skończyło; następne zaraz się zacznie.",
        "Turniej się zaczyna: pierwsze rozdanie za {clock}.",
        "Turniej się zaczyna: pierwsze rozdanie za chwilę.",
        "Czekamy na graczy ({seated} siedzi); pierwsze rozdanie zacznie się przy {needed}.",
        "TWOJA KOLEJ",
        "do wyrównania {amount}",
        "podbicie do {lo}..{hi}",
        "zakład {lo}..{hi}",
        "KOTWICA: twoje podbicia są ograniczone",
        "f pas",
        "x czekaj",
        "c sprawdź {amount}",
        "b N zakład ({lo}-{hi})",
        "r N podbij do N ({lo}-{hi})",
        "a all-in ({amount})",
        "moce: ",
        "Polecenia (wpisz jedno i naciśnij Enter):",
        *POWERS["pl"].values(),
    ),
    "pt": (
        "Aguardando a mesa...",
        ("LUGAR OFERECIDO {clock}: um lugar está reservado para você: `take` (ou `take N`) "
         "para sentar"),
        "`shield` (1 Destello) ou `pass`",
        "`pass` (você não pode usar o Escudo)",
        "JANELA DO ESCUDO {clock}: a Âncora Curta de {attacker} mira em você: {answer}",
        "Aguardando {actor} agir",
        "Não há mais mãos: o torneio terminou (`tournaments` para a lista, `q` para sair).",
        "Não há mais mãos: a mesa está fechada (`q` para sair).",
        "Nenhuma mão nova enquanto a mesa está pausada.",
        "A mão #{number} terminou; a próxima começa em breve.",
        "O torneio começa: a primeira mão é distribuída em {clock}.",
        "O torneio começa: a primeira mão é distribuída em breve.",
        "Aguardando jogadores ({seated} sentados); a primeira mão começa com {needed}.",
        "SUA VEZ",
        "para pagar {amount}",
        "aumentar para {lo}..{hi}",
        "apostar {lo}..{hi}",
        "ANCORADO: seus aumentos estão limitados",
        "f desistir",
        "x passar",
        "c pagar {amount}",
        "b N apostar ({lo}-{hi})",
        "r N aumentar para N ({lo}-{hi})",
        "a all-in ({amount})",
        "poderes: ",
        "Comandos (digite um e depois Enter):",
        *POWERS["pt"].values(),
    ),
    "vi": (
        "Đang chờ bàn...",
        "CHỖ DÀNH CHO BẠN {clock}: một chỗ đang được giữ cho bạn: `take` (hoặc `take N`) để ngồi",
        "`shield` (1 Destello) hoặc `pass`",
        "`pass` (bạn không thể dùng Lá Chắn)",
        "CỬA SỔ LÁ CHẮN {clock}: Mỏ Neo Ngắn của {attacker} nhắm vào bạn: {answer}",
        "Đang chờ {actor} hành động",
        "Hết ván: giải đấu đã kết thúc (`tournaments` để xem danh sách, `q` để thoát).",
        "Hết ván: bàn đã đóng (`q` để thoát).",
        "Không có ván mới khi bàn tạm dừng.",
        "Ván #{number} đã kết thúc; ván tiếp theo sắp bắt đầu.",
        "Giải đấu bắt đầu: ván đầu tiên được chia sau {clock}.",
        "Giải đấu bắt đầu: ván đầu tiên sắp được chia.",
        "Đang chờ người chơi ({seated} đã ngồi); ván đầu tiên bắt đầu khi có {needed}.",
        "LƯỢT CỦA BẠN",
        "cần theo {amount}",
        "tố lên {lo}..{hi}",
        "cược {lo}..{hi}",
        "BỊ NEO: mức tố của bạn bị giới hạn",
        "f bỏ bài",
        "x check",
        "c theo {amount}",
        "b N cược ({lo}-{hi})",
        "r N tố lên N ({lo}-{hi})",
        "a all-in ({amount})",
        "quyền năng: ",
        "Lệnh (gõ một lệnh rồi nhấn Enter):",
        *POWERS["vi"].values(),
    ),
    "ro": (
        "Se așteaptă masa...",
        "LOC OFERIT {clock}: un loc este ținut pentru tine: `take` (sau `take N`) ca să te așezi",
        "`shield` (1 Destello) sau `pass`",
        "`pass` (nu poți folosi Sigiliul)",
        "FEREASTRA SIGILIULUI {clock}: Ancora Scurtă a lui {attacker} te țintește: {answer}",
        "Se așteaptă ca {actor} să acționeze",
        "Nu mai sunt mâini: turneul s-a încheiat (`tournaments` pentru listă, `q` pentru ieșire).",
        "Nu mai sunt mâini: masa este închisă (`q` pentru ieșire).",
        "Nicio mână nouă cât timp masa este în pauză.",
        "Mâna #{number} s-a încheiat; următoarea începe în curând.",
        "Turneul începe: prima mână se împarte în {clock}.",
        "Turneul începe: prima mână se împarte în curând.",
        "Se așteaptă jucători ({seated} așezați); prima mână începe cu {needed}.",
        "RÂNDUL TĂU",
        "de plătit {amount}",
        "mărire la {lo}..{hi}",
        "pariu {lo}..{hi}",
        "ANCORAT: măririle tale sunt limitate",
        "f pas",
        "x check",
        "c plătește {amount}",
        "b N pariază ({lo}-{hi})",
        "r N mărește la N ({lo}-{hi})",
        "a all-in ({amount})",
        "puteri: ",
        "Comenzi (scrie una, apoi Enter):",
        *POWERS["ro"].values(),
    ),
}

CATALOGUES: dict[str, dict[str, str]] = {"en": {key: key for key in _KEYS}}
"""Each language's texts by their English key."""
for _lang, _texts in _TEXTS.items():
    if len(_texts) != len(_KEYS):  # pragma: no cover - caught by the tests too
        raise AssertionError(f"the {_lang} catalogue has {len(_texts)} texts, not {len(_KEYS)}")
    CATALOGUES[_lang] = dict(zip(_KEYS, _texts, strict=True))
for _module in (EVENT_TEXTS, SCREEN_TEXTS, STATUS_TEXTS):  # the events, screens, statuses
    for _english, _translations in _module.items():
        if _english in CATALOGUES["en"]:  # pragma: no cover - one text, one translation
            raise AssertionError(f"{_english!r} is in two catalogues")
        CATALOGUES["en"][_english] = _english
        for _lang, _text in zip(LANGUAGES[1:], _translations, strict=True):
            CATALOGUES[_lang][_english] = _text
