"""The Textual app, ``parlour play``.

Pure modules first, testable without Textual: :mod:`.board` (what a board is made of, and the
cursor's moves over it), :mod:`.layouts` (each game's board drawn from a player's view, and which
places each legal move joins), :mod:`.picking` (a press on a place: select, play or refuse),
:mod:`.practice` (a game against the local engine), :mod:`.race` (a seat in a race on a server, through
the client library). The thin Textual shell: :mod:`.widgets`, :mod:`.app` (the game screen, practice),
:mod:`.racing` (the race screen), :mod:`.connect` (``parlour play``: the connect screen), :mod:`.lobby`,
:mod:`.settings` (creating a race) and :mod:`.room` (before the start). The app only ever gets views,
never a game state.
"""
