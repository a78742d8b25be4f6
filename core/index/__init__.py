"""Indexes: rebuildable projections over the stores (which fragments are cited, where a
fragment's line is, which days are fully dreamed, the strength table). A projection is never
the truth: deleted or wrong, it is rebuilt, and it can only cost speed. May import every layer
up to `store`.
"""
