"""How an error with a source position is shown: the line, and a caret under the column."""

from gradcli.errors import GradcliError, Span


def test_short_line_is_shown_whole_with_the_caret_under_the_column():
    err = GradcliError("unexpected ')'", Span(1, 6), "(x+2))**2")
    assert err.render() == "error: unexpected ')' at 1:6\n  (x+2))**2\n       ^"


def test_an_inclusive_end_column_underlines_the_whole_name():
    err = GradcliError("unknown function 'sinn'", Span(1, 1, 1, 4), "sinn(x)")
    assert err.render().splitlines()[2] == "  ^~~~"


def test_long_line_is_cut_to_a_window_around_the_caret():
    source = "a+" * 500 + "?" + "+b" * 500
    column = 1001  # the '?'
    lines = GradcliError("unknown character '?'", Span(1, column), source).render().splitlines()
    shown, caret = lines[1][2:], lines[2][2:]
    assert len(shown) <= 80 and shown.startswith("…") and shown.endswith("…")
    assert shown[caret.index("^")] == "?"


def test_caret_stays_under_its_character_after_wide_characters():
    err = GradcliError("unknown name 'yy'", Span(1, 6, 1, 7), "数学 + yy")
    shown, caret = err.render().splitlines()[1:]
    # 数 and 学 take two columns each on a terminal: the caret moves two columns right.
    assert caret == "  " + " " * 7 + "^~"
    assert shown == "  数学 + yy"


def test_error_without_position_is_one_line():
    assert GradcliError("no such file: a.grad").render() == "error: no such file: a.grad"


def test_no_control_character_of_a_message_or_a_source_line_is_rendered_raw():
    from gradcli.errors import escape_controls

    for char in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\x1b\x85":
        err = GradcliError(f"unexpected {char}", Span(1, 3), f"x {char}")
        rendered = err.render()
        assert char not in rendered, repr(char)
        assert escape_controls(char) in rendered.splitlines()[1]
    assert escape_controls("a\nb\u202e") == "a\nb\\u202e"
