"""Each board cell's colour named in a phone's language, served to the phones that ask: the names
are the computer players' (`console.bots.names`, which says the rule).

The knowledge takes a second or two to read on a Pi, so nothing here is worked out before a phone
asks: `ColourNames` builds a language's list the first time it is asked for, on the web's
`Thinker` (in the console, the computer players' thread, which reads the knowledge for them too),
and keeps it; the computer players' modules are imported there too, so a console whose phones
never ask never loads them (its start is not slowed by them).
"""

from __future__ import annotations

import asyncio
import json

from console.web.thinker import Thinker


def colour_names_json(lang: str) -> bytes:
    from console.bots.names import cell_colour_names  # on the worker thread, when first asked

    return json.dumps(cell_colour_names(lang), ensure_ascii=False).encode()


class ColourNames:
    """Each language's names as JSON, built the first time a phone asks (on `thinker`, off the
    server's event loop) and kept; phones asking while it is built wait for that build."""

    def __init__(self, thinker: Thinker) -> None:
        self.thinker = thinker
        self._built: dict[str, bytes] = {}
        self._building = asyncio.Lock()

    async def json(self, lang: str) -> bytes:
        """The names; `thinker.Stopping` when the box stops before they are built."""
        built = self._built.get(lang)
        if built is None:
            async with self._building:
                built = self._built.get(lang)
                if built is None:
                    built = self._built[lang] = await self.thinker.run(colour_names_json, lang)
        return built
