"""Pure design computation: fabric dataclasses, generators, rules. Never imports Django."""
