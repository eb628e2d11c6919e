"""The Textual app, ``parlour play``.

Pure modules first, testable without Textual: :mod:`.board` (what a board is made of, and the
cursor's moves over it), :mod:`.layouts` (each game's board drawn from a player's view, and which
places each legal move joins), :mod:`.picking` (a press on a place: select, play or refuse),
:mod:`.practice` (a game against the local engine). The thin Textual shell: :mod:`.widgets` and
:mod:`.app`. The app only ever gets views, never a game state.
"""
