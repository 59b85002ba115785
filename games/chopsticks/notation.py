"""How hands are written: a digit per whole-finger hand, a letter per hand holding a half finger (stumps).

With stumps a hand can hold half fingers, so values are counted in units of 1/unit finger (unit 2). In codes
and move texts a half value is a lower-case letter: a = ½, b = 1½, c = 2½, ..., j = 9½; whole values stay
digits, so a game that never uses a half finger reads exactly like the seed's notation.
"""

from __future__ import annotations

HALF_LETTERS = "abcdefghij"
ZOMBIE_MARK = "z"  # a zombie seat is written as dead hands followed by z ("0z" with two hands)

Hands = tuple[int, ...]


def value_char(value: int, unit: int) -> str:
    """One character for a hand value in units: '3', or 'b' for 1½."""
    whole, half = divmod(value, unit)
    return HALF_LETTERS[whole] if half else str(whole)


def value_label(value: int, unit: int) -> str:
    """A hand value for people: '3', '½', '1½'."""
    whole, half = divmod(value, unit)
    if not half:
        return str(whole)
    return f"{whole or ''}½"


def hands_text(hands: Hands, unit: int) -> str:
    """One seat's hands as written in codes and splits: '13', 'a1'."""
    return "".join(value_char(v, unit) for v in hands)


def hands_label(hands: Hands, unit: int) -> str:
    """One seat's hands for people: '13', '½ 1' (spaced only when a half finger needs it)."""
    if unit == 1 or all(v % unit == 0 for v in hands):
        return "".join(str(v // unit) for v in hands)
    return " ".join(value_label(v, unit) for v in hands)


def parse_value(char: str, unit: int) -> int | None:
    """The value in units written as `char`, or None if it means nothing here."""
    if char in "0123456789":
        return int(char) * unit
    letter = char.lower()
    if unit == 2 and letter in HALF_LETTERS:
        return HALF_LETTERS.index(letter) * 2 + 1
    return None
