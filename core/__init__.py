"""dreamdeck core: the memory engine. No Textual, no Rich, no terminal."""
