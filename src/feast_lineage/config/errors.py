"""The one configuration error: a single line naming the option and the fix."""

from __future__ import annotations


class ConfigError(Exception):
    """A configuration that cannot work. ``str(err)`` is one line for the user."""

    def __init__(self, option: str, problem: str, fix: str) -> None:
        self.option = option
        self.problem = problem
        self.fix = fix
        super().__init__(f"{option}: {problem}; {fix}")
