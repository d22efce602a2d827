"""The one configuration error: a single line naming the option and the fix."""

from __future__ import annotations

# The context key of a settings model's error about several of its options at once (a
# model validator's, whose error has no location): the options it names, in the order its
# message names them. The loader reports the error under where each came from, the
# environment variable of one set there (``loader._config_error``).
OPTIONS_CTX = "options"

# The context key of a settings model's error that says its own fix: the loader gives that
# fix in place of the option's usual one (or the pointer to the option's section of
# docs/configuration.md), so a message says what to do once.
FIX_CTX = "fix"


class ConfigError(Exception):
    """A configuration that cannot work. ``str(err)`` is one line for the user."""

    def __init__(self, option: str, problem: str, fix: str) -> None:
        self.option = option
        self.problem = problem
        self.fix = fix
        super().__init__(f"{option}: {problem}; {fix}")
