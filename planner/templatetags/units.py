"""``{% load units %}``: numbers as the pages write them (thousands separators, units).

One filter per kind of figure, each a thin wrapper of :mod:`planner.presentation`; the
browser's twin is ``frontend/src/format.js``.

    {{ 1016|thousands }}              -> 1,016
    {{ 1016|count:"GPU" }}            -> 1,016 GPUs
    {{ price.price|money:"USD" }}     -> 32,870.00 USD
    {{ 4620858|unit:"BTU/h" }}        -> 4,620,858 BTU/h
"""

from django import template

from planner import presentation

register = template.Library()


@register.filter
def thousands(value):
    """A number with thousands separators (``—`` for none)."""
    return presentation.number(value)


@register.filter
def count(value, word):
    """``1016|count:"GPU"`` -> ``1,016 GPUs``; ``"entry,entries"`` gives an irregular plural."""
    singular, _, plural = str(word).partition(",")
    return presentation.count(value, singular, plural)


@register.filter
def money(value, currency=""):
    """An amount to the cent with separators, then the currency if given."""
    return presentation.money(value, currency or "")


@register.filter
def unit(value, name):
    """A number with separators and its unit."""
    return presentation.quantity(value, name)
