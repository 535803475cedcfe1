"""A tournament's records as one zip (``GET /api/tournaments/{id}/records.zip``): the full
record of every game of it that is over, as ``GET /api/games/{id}/record`` gives it (JSON,
and SGF too for games whose facts list it), named by round and players, with the standings
(``standings.csv``) and the tournament as the API shows it (``tournament.json``). Games still
being played are left out until they end; names are account names (ASCII letters, digits,
``-`` and ``_``), so every file name is safe."""
from __future__ import annotations

import asyncio
import io
import json
import zipfile

from ..api_games import _record as game_record
from ..rest import ApiError, find_room
from . import view


async def records_zip(hub, shown: dict) -> bytes:
    """The zip of ``shown`` (``view.full``'s answer) and its finished games' records."""
    files: dict[str, str] = {"tournament.json": json.dumps(shown, indent=1,
                                                          ensure_ascii=False),
                             "standings.csv": view.standings_csv(shown)}
    for pairing in shown["pairings"]:
        game_id = pairing["game"]
        room = await find_room(hub, game_id) if game_id else None
        if room is None:
            continue
        try:
            record = await game_record(hub, room)
            game = room.driver.game
            sgf = game.sgf(record) if "sgf" in game.record_formats else None
        except ApiError:            # not over yet
            continue
        finally:
            hub.release(room)
        players = "-".join(name or "deleted" for name in pairing["sides"])
        stem = f"round-{pairing['round']:03d}-{players}-{game_id}"
        files[f"{stem}.json"] = json.dumps(record, ensure_ascii=False)
        if sgf is not None:
            files[f"{stem}.sgf"] = sgf
    return await asyncio.to_thread(_zipped, files)


def _zipped(files: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return out.getvalue()
