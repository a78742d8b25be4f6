"""dreamdeck's engine: no Textual, no Rich, no terminal; importable and scriptable on its own.

Layers, lowest first; a module may import its own layer and the ones below, never above
(tests/test_layers.py enforces it, imports inside functions included):

    errors     the one error root, DreamdeckError, and its kinds
    io         files without meaning: atomic writes, the durable appender, the cache policy
    formats    TypeClaw's and dreamdeck's bytes as text: events, ids, slugs, citations, shards
    claims     what a text says: claims, sameness and contradiction (pure functions)
    workspace  the agent folder and the places dreamdeck keeps things
    git        the one git runner; commits, history, notes, diffs and merges
    store      one file family each (streams, state, tombstones, audit, reflections, ...)
    index      rebuildable projections over the stores (citations, fragments, strength)
    door       the one door: a ChangeSet is checked, written, collected and committed
    ops        the verbs people and agents use, each building ChangeSets for the door
    dreaming   dream runs, dreamers, gates and the watcher
"""
