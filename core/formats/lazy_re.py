"""Regular expressions compiled on first use, not on import: the one way for module constants.

A fresh `dreamdeck recall` imports the formats its path may need (secrets for the access record,
stream lines, loose text, terminal text) but uses few of their expressions; compiling them all
on import cost 30-75 ms of a 0.3 s process. `lazy_re(pattern, flags)` stands for
`re.compile(pattern, flags)`: the first attribute asked of it (`.search`, `.match`, ...) compiles
the pattern, and each attribute is then kept on the object, so later uses cost a plain attribute
lookup. It is typed as the compiled pattern: use its methods (`X.sub(...)`, `X.pattern`), never
pass it to the `re` module's functions (`re.sub(X, ...)` wants a real compiled pattern).
"""
from __future__ import annotations

import re
from typing import Any, cast, overload


class _LazyPattern:
    """Stands for a compiled pattern; `pattern` is known without compiling."""

    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:  # only for names not yet kept on the object
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self.__dict__["_compiled"] = re.compile(self.pattern, self._flags)
        value = getattr(compiled, name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"lazy_re({self.pattern!r}, {self._flags})"


@overload
def lazy_re(pattern: str, flags: int = 0) -> re.Pattern[str]: ...
@overload
def lazy_re(pattern: bytes, flags: int = 0) -> re.Pattern[bytes]: ...
def lazy_re(pattern: str | bytes, flags: int = 0) -> re.Pattern[Any]:
    """`re.compile(pattern, flags)`, done the first time the pattern is used."""
    return cast("re.Pattern[Any]", _LazyPattern(pattern, flags))
