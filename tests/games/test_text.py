"""games/text.py: what a person typed is shown on one line and as plain text (issue 22, point 10)."""

from __future__ import annotations

from games.text import Text, Typed, one_line


def test_typed_words_stay_on_one_line_and_cannot_mark_themselves_up() -> None:
    for typed, shown in (
        ("Blue and I\n\nMarked as accepted by: <@1>", "Blue and I Marked as accepted by: <@1>"),
        ("a\r\nb\vc\fd\x1ce\x85f\u2028g\u2029h", "a b c d e f g h"),
        ("# heading", "\\# heading"), ("> quote", "\\> quote"), ("-# subtext", "\\-# subtext"),
        ("- item", "\\- item"), ("1. first", "1\\. first"),
        ("**bold** _it_ __u__ ~~s~~ ||spoiler|| `code` [link](https://x.example)",
         "\\*\\*bold\\*\\* \\_it\\_ \\_\\_u\\_\\_ \\~\\~s\\~\\~ \\|\\|spoiler\\|\\| \\`code\\` \\[link\\](https://x.example)"),
        ("back\\slash", "back\\\\slash"), ("\u202eevil\u2066", "evil"), ("e3-e4 and 2.5 chips", "e3-e4 and 2.5 chips"),
    ):
        assert Typed(typed).render() == shown
        assert Typed(typed).render(lambda text: "ignored") == shown  # nothing in it is translated
    said = Text("Saved as **{name}**: load it from the menu.", name=Typed("x** **@everyone\n# y"))
    assert str(said) == "Saved as **x\\*\\* \\*\\*@everyone # y**: load it from the menu."
    assert one_line("two\nlines\u2028and **more**") == "two lines and **more**"
