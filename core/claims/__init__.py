"""Claims: what a fragment or a belief says, and whether two say the same or contradict.

Pure functions over text. May import `errors`, `io` and `formats`.
"""
