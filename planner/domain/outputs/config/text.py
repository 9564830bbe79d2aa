"""Neutralising the text a user wrote before it reaches a configuration file.

Node names, rack names and the design's name are the user's (a hand-drawn topology names its
nodes freely); in a configuration they become interface descriptions and comment lines that a
shell (NVUE ``nv set`` commands), the EOS CLI or an opensm parser reads. A newline would end a
comment and start a command, a quote or ``;`` would end an argument. So every such text passes
through :func:`safe_text` (descriptions, names) or :func:`safe_token` (a name used as one
word), which keep letters, digits and ``. _ - : / @ +`` (and spaces in :func:`safe_text`),
write ``_`` for anything else, and never let a text begin with ``-`` (which a command line
would read as an option); a comment line's body passes through :func:`safe_comment`, which
turns every control character (line breaks first) into a space. The JSON and YAML renderings
quote through their serialisers as well. Catalog slugs go through the same functions: they are
data too.
"""

from __future__ import annotations

import math
import re

#: Longest description written (EOS and SONiC take longer ones; NVUE's limit was not found).
MAX_TEXT = 120
_UNSAFE_TEXT = re.compile(r"[^A-Za-z0-9._:/@+ -]")
_UNSAFE_TOKEN = re.compile(r"[^A-Za-z0-9._:/@+-]")
_SPACES = re.compile(r" {2,}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def safe_text(text: object, limit: int = MAX_TEXT) -> str:
    """``text`` as one line of harmless characters (descriptions and comments).

    Examples
    --------
    >>> safe_text("gpu01 port 1")
    'gpu01 port 1'
    >>> safe_text("x\\nnv set system hostname evil; rm -rf /'")
    'x_nv set system hostname evil_ rm -rf /_'
    >>> safe_text("-leaf"), safe_text("")
    ('_leaf', '')
    """
    line = _SPACES.sub(" ", _UNSAFE_TEXT.sub("_", str(text))).strip()[:limit]
    return "_" + line[1:] if line.startswith("-") else line


def safe_comment(text: object, limit: int = 400) -> str:
    """``text`` as the body of one comment line: every control character (a newline would end
    the comment and start a command) becomes a space; the rest is kept.

    >>> safe_comment("Clos (3:1), rev 2\\nnv config apply")
    'Clos (3:1), rev 2 nv config apply'
    """
    return _SPACES.sub(" ", _CONTROL.sub(" ", str(text))).strip()[:limit]


def safe_token(text: object, limit: int = MAX_TEXT) -> str:
    """``text`` as one word of harmless characters (a name inside a command or a key).

    Examples
    --------
    >>> safe_token("leaf 01"), safe_token("$(reboot)"), safe_token("")
    ('leaf_01', '__reboot_', '_')
    """
    token = _UNSAFE_TOKEN.sub("_", str(text))[:limit] or "_"
    return "_" + token[1:] if token.startswith("-") else token


def shown(value: object) -> str:
    """A setting as a header comment shows it ("not set" when blank).

    >>> shown(3), shown(None), shown(())
    ('3', 'not set', 'not set')
    """
    return "not set" if value is None or value == () else str(value)


def whole_metres(length_m: float | None) -> int | None:
    """A cable length as the switches take it, whole metres rounded up (None when unknown).

    >>> whole_metres(8.6), whole_metres(3.0), whole_metres(None), whole_metres(float("nan"))
    (9, 3, None, None)
    """
    if length_m is None or not math.isfinite(length_m):
        return None
    return max(1, math.ceil(round(float(length_m), 3)))


__all__ = ["MAX_TEXT", "safe_comment", "safe_text", "safe_token", "shown", "whole_metres"]
