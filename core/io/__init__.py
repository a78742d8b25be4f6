"""I/O primitives with no knowledge of memory: atomic writes, the durable appender, and the
one cache policy (`io.cache`). May import `errors` only.
"""
