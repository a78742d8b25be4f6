"""dreamdeck's test suite: one package, so every shared helper is imported one way
(`from tests.support.memory import write_stream`) from any folder pytest is started in."""
