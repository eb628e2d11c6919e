"""The race server: websockets, races, Redis persistence."""
