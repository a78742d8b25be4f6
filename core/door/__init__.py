"""The one door: every mutation of memory is a ChangeSet that `door.apply` resolves, checks
(containment, the citation superset, tombstones), writes atomically with a journal, collects
(compaction and fragment GC) and commits with one audit line each. May import every layer up
to `index`.
"""
