"""One catalog for every word: every message in English, Russian and Greek with the same placeholders, plural forms
from each catalog's own header, no sentence left in Python or JavaScript, the web client's words served from the
catalogs, and whole scripted games in Russian and Greek (engine and narration, and the terminal client) that
say no English word."""

from __future__ import annotations

import ast
import io
import random
import re
import string
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_helpers import ThreadServer

from trickroom.games import IllegalAction, events_for, game_class, load_game
from trickroom.narration import (
    DOMAINS,
    LANGUAGES,
    describe,
    narrate,
    parsed,
    plural_keys,
    refusal,
    translate,
    translations,
)
from trickroom.narration.games import game_entry
from trickroom.narration.names import card_name, cards_name, suit_name
from trickroom.narration.web import bundle, bundle_json
from trickroom.terminal.console import Console
from trickroom.terminal.offline import OfflineGame
from trickroom.terminal.render import Style

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "trickroom"
NPLURALS = {"en": 2, "ru": 3, "el": 2}
# A parameter may be given in another grammatical case or with a capital; it is the same word.
CASES = ("_acc", "_cap")


def placeholders(text: str) -> set[str]:
    names = {name for _, name, _, _ in string.Formatter().parse(text) if name}
    for suffix in CASES:
        names = {name.removesuffix(suffix) for name in names}
    return names


def messages(lang: str, domain: str) -> dict[str, list[str]]:
    """Every message of a catalog by key, as the list of its forms (one for a message that counts nothing)."""
    found = parsed(lang, domain)
    assert found is not None, f"no {lang}/{domain}.po"
    result: dict[str, list[str]] = {}
    for message in found:
        if not message.id:
            continue
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        result[str(key)] = [str(s) for s in message.string] if isinstance(message.string, tuple) else [
            str(message.string)]
    return result


# --- The catalogs themselves ------------------------------------------------------------------------------


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_message_is_in_every_language_with_the_same_placeholders(domain: str) -> None:
    english = messages("en", domain)
    assert len(english) > 10
    for lang in LANGUAGES:
        found = messages(lang, domain)
        assert found.keys() == english.keys(), (lang, sorted(found.keys() ^ english.keys()))
        for key, forms in found.items():
            assert all(form.strip() for form in forms), f"{lang}/{domain}.po: {key} is empty"
            expected = set().union(*(placeholders(form) for form in english[key]))
            said = set().union(*(placeholders(form) for form in forms))
            assert said == expected, f"{lang}/{domain}.po {key}: {sorted(said)} instead of {sorted(expected)}"


@pytest.mark.parametrize("domain", DOMAINS)
def test_plural_forms_come_from_each_catalogs_header(domain: str) -> None:
    english_plurals = plural_keys("en", domain)
    for lang in LANGUAGES:
        found = parsed(lang, domain)
        assert found is not None
        headers = dict(found.mime_headers)
        assert headers.get("Plural-Forms", "").startswith(f"nplurals={NPLURALS[lang]};"), (lang, domain)
        assert found.num_plurals == NPLURALS[lang]
        assert plural_keys(lang, domain) == english_plurals, (lang, domain)
        for key in english_plurals:
            assert len(messages(lang, domain)[key]) == NPLURALS[lang], (lang, domain, key)


def test_the_plural_rule_is_each_languages_own() -> None:
    numbers = [0, 1, 2, 4, 5, 11, 12, 14, 21, 22, 25, 101, 111]
    assert [translations("ru", "room").plural(n) for n in numbers] == [2, 0, 1, 1, 2, 2, 2, 2, 0, 1, 2, 0, 2]
    for lang in ("en", "el"):
        assert [translations(lang, "room").plural(n) for n in numbers] == [int(n != 1) for n in numbers]
    cards = {n: translate("count.cards", "ru", plural=n, number=n) for n in (1, 2, 5, 11, 21, 22)}
    assert cards == {1: "1 карту", 2: "2 карты", 5: "5 карт", 11: "11 карт", 21: "21 карту", 22: "22 карты"}
    assert translate("count.cards", "el", plural=1, number=1) == "1 φύλλο"
    assert translate("count.cards", "el", plural=3, number=3) == "3 φύλλα"


def test_card_and_suit_names_in_each_language_and_case() -> None:
    assert card_name("QS") == "queen of spades"
    assert card_name("QS", "ru") == "дама пик"
    assert card_name("QS", "ru", case="acc") == "даму пик"
    assert cards_name(["QS", "7S"]) == "queen and seven of spades"
    assert cards_name(["9D", "JS"]) == "nine of diamonds and jack of spades"
    assert cards_name(["KD", "8D"], "ru", case="acc") == "короля и восьмёрку бубен"
    # Greek: spades are μπαστούνι and clubs σπαθί (not the literal "sword" for spades); the accusative takes the
    # article of the rank's gender.
    assert card_name("QS", "el") == "ντάμα μπαστούνι"
    assert card_name("AC", "el") == "άσος σπαθί"
    assert [card_name(c, "el", "acc") for c in ("AH", "QH", "7H", "JD")] == [
        "τον άσο κούπα", "την ντάμα κούπα", "το εφτάρι κούπα", "τον βαλέ καρό"]
    assert cards_name(["KS", "TS"], "el", "acc") == "τον ρήγα και το δεκάρι μπαστούνι"
    assert [suit_name(s, "el") for s in "SHDC"] == ["μπαστούνια", "κούπες", "καρό", "σπαθιά"]
    # One name for hearts in Russian, in the room's sentences and the client's answers alike (was червы / черви).
    assert suit_name("H", "ru") == bundle("ru")["messages"]["cards"]["suit.H"] == "червы"


def test_one_wording_for_each_combination_and_action_everywhere() -> None:
    """"Three Aces" in the room, "three aces" in the client; "claim" in a refusal, "Claim 31" on the button: the
    client now takes both from the room's catalog."""
    for lang in LANGUAGES:
        web = bundle(lang)["messages"]
        assert "kind.aces" not in web["web"] and "act.claim" not in web["web"]
        assert web["bura"]["bura.kind.aces"] == translate("bura.kind.aces", lang, "bura")
        assert web["room"]["action.claim"] == translate("action.claim", lang)
    assert translate("action.claim", "en") == "claim 31"


# --- No sentence in code ----------------------------------------------------------------------------------

FOREIGN_LETTERS = re.compile("[\u0370-\u03ff\u1f00-\u1fff\u0400-\u04ff]")


def python_strings(path: Path) -> Iterator[str]:
    """The string constants of a module that are not docstrings (examples in docstrings and comments may quote a
    sentence; code may not hold one)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_SUIT_WORDS"
                                                for t in node.targets):
            docstrings |= {id(n) for n in ast.walk(node.value)}  # the engines' input grammar, see below
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "_SUIT_WORDS":
            docstrings |= {id(n) for n in ast.walk(node.value) if node.value is not None}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.value


def web_code(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        return re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def test_no_russian_or_greek_word_is_left_in_the_code() -> None:
    """Words live in the catalogs. The one exception is the engines' input grammar: the suit words the action
    parser has always accepted (``name hearts`` and its Russian spellings), in cards._SUIT_WORDS."""
    for path in SOURCE.rglob("*.py"):
        for text in python_strings(path):
            assert not FOREIGN_LETTERS.search(text), f"{path.relative_to(ROOT)}: {text!r}"
        assert "russian_count" not in path.read_text(encoding="utf-8"), path
    for path in [*SOURCE.rglob("*.js"), *SOURCE.rglob("*.html")]:
        code = web_code(path)
        found = FOREIGN_LETTERS.search(code)
        assert found is None, f"{path.relative_to(ROOT)}: {code[max(0, found.start() - 40):found.end() + 40]!r}"


def test_the_web_client_asks_only_for_words_the_catalogs_have() -> None:
    words = bundle("en")["messages"]
    keys: set[str] = set()
    for path in (SOURCE / "web" / "static" / "js").glob("*.js"):
        keys |= set(re.findall(r"\btn?\(\s*\"([a-z0-9_.:-]+)\"", path.read_text(encoding="utf-8")))
    html = (SOURCE / "web" / "static" / "index.html").read_text(encoding="utf-8")
    keys |= set(re.findall(r'data-i18n(?:-label|-placeholder)?="([^"]+)"', html))
    assert len(keys) > 150
    for key in keys:
        domain, _, name = key.rpartition(":")
        assert name in words[domain or "web"], key


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadServer]:
    db = tmp_path_factory.mktemp("catalogs") / "room.sqlite3"
    server = ThreadServer(db=f"sqlite:///{db}", bot_workers=0).start()
    yield server
    server.stop()


def test_the_words_of_the_web_client_are_served_with_an_etag(room: ThreadServer) -> None:
    with httpx.Client(base_url=room.http, timeout=10) as client:
        check_served_words(client)


def check_served_words(client: httpx.Client) -> None:
    first = client.get("/i18n/el.json")
    assert first.status_code == 200 and first.headers["content-type"].startswith("application/json")
    body = first.json()
    assert body["lang"] == "el" and body["languages"] == [["en", "English"], ["ru", "Русский"], ["el", "Ελληνικά"]]
    assert body["plural"] == {"forms": 2, "expr": "(n != 1)"}
    assert body["messages"]["web"]["menu"] == "Μενού"
    assert body["messages"]["web"]["info.pot"] == ["Στο ποτ υπάρχει {pot} μάρκα.", "Στο ποτ υπάρχουν {pot} μάρκες."]
    assert first.headers["etag"] == bundle_json("el")[1]
    again = client.get("/i18n/el.json", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/i18n/de.json").status_code == 404
    russian = client.get("/i18n/ru.json").json()
    # "В банке 2 фишек.": the client's pot sentence now has the catalog's three Russian forms and rule.
    assert russian["messages"]["web"]["info.pot"] == ["В банке {pot} фишка.", "В банке {pot} фишки.",
                                                      "В банке {pot} фишек."]
    assert russian["plural"]["forms"] == 3 and "n%10==1" in russian["plural"]["expr"]


def test_the_hello_lists_each_games_words_in_every_language() -> None:
    bura = game_entry("bura")
    assert bura["title"] == {"en": "Bura", "ru": "Бура", "el": "Μπούρα"}
    preset = next(o for o in bura["options"] if o["name"] == "preset")
    assert preset["key"] == "bura.option.preset"
    assert preset["label"]["el"] == "Συνδυασμοί"
    assert preset["labels"]["ru"] == {"classic": "классика", "moscow": "московская"}
    assert set(preset["description"]) == set(LANGUAGES)


# --- Whole scripted games say no English word -------------------------------------------------------------

NAMES = {"ru": ["Ира", "Борис", "Вера", "Глеб", "Дина"], "el": ["Ειρήνη", "Βασίλης", "Ελένη", "Γιώργος", "Δήμητρα"]}
# What may be written in Latin letters in a Russian or Greek line: card codes (QS, 10h, 7d), suit and rank
# letters, N in "история [N]", and the name of the Enter key.
ALLOWED = re.compile(r"(10|[2-9TJQKAtjqka])?[SHDCshdc]|[BCDHJKNQSTAq]|Enter")


def english_words(line: str) -> list[str]:
    """The Latin words of a line, beside card codes and what the player typed (quoted back in «»)."""
    line = re.sub(r"«[^»]*»", "", line)
    return [word for word in re.findall(r"[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*", line) if not ALLOWED.fullmatch(word)]


def scripted_sentences(name: str, options: dict[str, object], lang: str, seed: int) -> list[str]:
    """A whole match with random moves and a few mistakes, narrated for every seat and a spectator, with the
    refusals, the table's description and the options' words."""
    game = load_game(name, **options)
    rng = random.Random(seed)
    match = game.new_match(seed=seed)
    names = NAMES[lang][:game.players]
    said = [describe(game, lang), *(game_entry(name)["options"][i]["description"][lang]
                                   for i in range(len(game.OPTIONS)))]
    # Mistakes a client in the language can send (the terminal says its own words' mistakes itself).
    mistakes = ["", {"ru": "танец", "el": "χορός"}[lang], "play 6S", "play 1H", "meld AS", "name X", "play AS KS QS JS"]
    while not match.is_over:
        seat = rng.choice(match.to_act)
        legal = match.legal_actions(seat)
        if rng.random() < 0.05:
            try:
                match.apply(seat, rng.choice(mistakes))
            except IllegalAction as exc:
                said.append(refusal(exc, lang))
        action = rng.choice([a for a in legal if a != "claim"] or legal)
        if "claim" in legal and rng.random() < 0.02:
            action = "claim"
        match.apply(seat, action)
    for viewer in (*range(game.players), None):
        said += [s for e in events_for(match.events, viewer) if (s := narrate(name, e, viewer, lang, names))]
    return said


@pytest.mark.parametrize("lang", ["ru", "el"])
@pytest.mark.parametrize(("name", "options"), [
    ("bura", {"players": 3, "stack": 3}), ("bura", {"players": 2, "preset": "moscow", "scoring": "points"}),
    ("mpourloto", {"target": 300}), ("mpourloto", {"partner_relief": True, "target": 200}),
])
def test_a_whole_scripted_game_through_the_engine_and_narration_says_no_english_word(
        lang: str, name: str, options: dict[str, object]) -> None:
    sentences = scripted_sentences(name, options, lang, seed=7)
    assert len(sentences) > 100
    for sentence in sentences:
        assert not english_words(sentence), sentence


TYPED = {
    "ru": ["справка", "карты", "стол", "счёт", "козыри", "история 3", "ходы", "что-то", "сыграть", "назвать"],
    "el": ["βοήθεια", "χέρι", "τραπέζι", "σκορ", "ατού", "ιστορικό 3", "επιλογές", "κάτι", "παίζω", "κόζι"],
}


@pytest.mark.parametrize("lang", ["ru", "el"])
@pytest.mark.parametrize(("name", "options"), [("bura", {"players": 2, "hand_limit": 2}), ("mpourloto", {})])
def test_a_whole_scripted_game_in_the_terminal_client_says_no_english_word(
        lang: str, name: str, options: dict[str, object]) -> None:
    """Information commands, mistakes and help in the player's language, then the first choice every time."""
    typed = "\n".join([*TYPED[lang], *["1"] * 3000]) + "\n"
    out = io.StringIO()
    game = OfflineGame(load_game(name, **options), "random", None, Console(io.StringIO(typed), out), lang,
                       Style(), seed=5, hands=2 if name == "mpourloto" else 0)
    assert game.run() == 0
    lines = out.getvalue().splitlines()
    assert len(lines) > 60
    for line in lines:
        assert not english_words(line), line
    text = "\n".join(lines)
    assert game_class(name).OPTIONS  # the options' words were said in the language with the table's description
    assert lines[0] == describe(game.game, lang)
    if lang == "ru":
        assert "Ходы: 1 " in text and "Ваш ход." in text
    else:
        assert "Επιλογές: 1 " in text and "Σειρά σας." in text
