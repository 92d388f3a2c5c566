"""Game options from outside (a client's ``create`` or ``options``): whatever the names and values, the game
either accepts them or refuses with an :class:`OptionError` (which the room says in the player's language),
never another exception."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trickroom.games import GAMES, OptionError, game_class, load_game


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("name", ["name", "self", "options", "cls", "__class__"])
def test_an_option_named_like_a_parameter_is_an_unknown_option(game: str, name: str) -> None:
    with pytest.raises(OptionError) as refused:
        load_game(game, **{name: "x"})
    assert refused.value.key == "option.unknown" and refused.value.params["option"] == name


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 2.5, 1e400, "2.5", "", [2], {"a": 2}, True, None])
def test_a_number_option_takes_only_whole_numbers(value: Any) -> None:
    with pytest.raises(OptionError) as refused:
        load_game("bura", players=value)
    assert refused.value.key == "option.integer"


def test_whole_numbers_in_other_shapes_are_still_whole_numbers() -> None:
    assert load_game("bura", players=3.0).players == 3
    assert load_game("bura", players="4").players == 4
    with pytest.raises(OptionError) as refused:
        load_game("bura", players=10**40)
    assert refused.value.key == "option.maximum"


JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                        max_size=3),
                           max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(game=st.sampled_from(sorted(GAMES)),
       options=st.dictionaries(st.sampled_from(["players", "scoring", "target", "stack", "preset", "hand_limit",
                                                "show_points", "partner_relief", "name", "self", "x"]),
                               JSON_VALUES, max_size=4))
def test_any_json_options_are_accepted_or_refused_with_an_option_error(game: str, options: dict[str, Any]) -> None:
    try:
        validated = game_class(game).validate_options(options)
        load_game(game, **options)
    except OptionError as refused:
        assert refused.key and str(refused)
        return
    assert set(validated) == {option.name for option in game_class(game).OPTIONS}
