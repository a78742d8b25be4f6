"""dreamdeck terminal app and command line."""
