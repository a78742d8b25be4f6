"""Git: the one runner (`git.runner`), memory commits the way TypeClaw makes them, history,
notes, and git-made diffs and merges. May import `errors`, `io`, `formats`, `claims`, `workspace`.
"""
