"""The registry of formats (lineit/formats/registry.py): the four built-in formats in the order every
face lists them, what each tells the faces, the option checks, and what registering refuses.
tests/tournaments/test_tournament_format_seam.py registers a format of its own and follows it
through every face."""

from __future__ import annotations

import pytest

from lineit import formats
from lineit.formats.registry import Table


class Nameless(formats.TournamentFormat):
    def pair(self, state: formats.TournamentState) -> list[Table] | None:
        return None


def test_the_built_in_formats_in_the_order_every_face_lists_them() -> None:
    assert list(formats.FORMAT_CHOICES) == [
        ("round-robin", "round robin"),
        ("swiss", "Swiss"),
        ("single", "single elimination"),
        ("double", "double elimination"),
    ]
    assert formats.format_names() == tuple(format.name for format in formats.all_formats())
    assert formats.get_format(formats.SWISS).name == "swiss"


def test_what_each_format_tells_the_faces() -> None:
    with_bracket = [format.name for format in formats.all_formats() if format.has_bracket]
    by_buchholz = [format.name for format in formats.all_formats() if "buchholz" in format.tie_breaks]
    assert with_bracket == ["single", "double"] and by_buchholz == ["swiss"]
    assert {name: formats.option_readers(name) for name in ("rounds", "cycles", "advance", "grand_final_reset")} == {
        "rounds": ("swiss",),
        "cycles": ("round-robin",),
        "advance": ("single", "double"),
        "grand_final_reset": ("double",),
    }


def test_an_unknown_format_names_the_known_ones() -> None:
    with pytest.raises(formats.FormatError, match="unknown format 'chess'; choose one of round-robin, swiss, single"):
        formats.get_format("chess")


@pytest.mark.parametrize(
    ("format", "options", "message"),
    [
        ("swiss", {"laps": 2}, "unknown options laps; allowed: rounds, cycles, advance, grand_final_reset"),
        ("round-robin", {"rounds": 2}, "rounds is an option of swiss tournaments, not of round-robin"),
        ("round-robin", {"advance": 1}, "advance is an option of single and double tournaments"),
        ("swiss", {"rounds": True}, "rounds must be a whole number, not True"),
        ("round-robin", {"cycles": None}, "cycles must be a whole number, not None"),
        ("double", {"grand_final_reset": 1}, "grand_final_reset must be true or false, not 1"),
    ],
)
def test_options_are_those_the_format_reads_and_of_their_type(format: str, options: dict, message: str) -> None:
    with pytest.raises(formats.FormatError, match=message):
        formats.check_options(format, options)


def test_options_left_to_the_default_and_an_unknown_format_pass_the_option_check() -> None:
    formats.check_options("swiss", {"rounds": None})
    formats.check_options("double", {"advance": None, "grand_final_reset": False})
    formats.check_options("chess", {"rounds": 3})  # the format itself is refused where it is played


def test_for_any_field_leaves_the_options_bound_to_the_field_size_to_the_default() -> None:
    options = formats.Options(table_size=3, rounds=4, cycles=2, advance=1)
    assert formats.for_any_field(options) == formats.Options(table_size=3, rounds=None, cycles=2, advance=1)


def test_registering_refuses_bad_names_twice_the_same_name_and_unknown_options() -> None:
    nameless = Nameless()
    with pytest.raises(ValueError, match="short slug"):
        formats.register(nameless)
    nameless.name = "a-name-of-thirteen"
    with pytest.raises(ValueError, match="short slug"):
        formats.register(nameless)
    nameless.name = "swiss"
    with pytest.raises(ValueError, match="registered already"):
        formats.register(nameless)
    nameless.name = "laps"
    nameless.options = (formats.Option("laps", int),)
    with pytest.raises(ValueError, match="Options does not have: laps"):
        formats.register(nameless)
    assert formats.format_names() == ("round-robin", "swiss", "single", "double")
