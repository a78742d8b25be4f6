"""The one door: every mutation of memory is a ChangeSet (`door.changeset`, the data) that
`door.apply` resolves, checks (`door.checks`: containment, the citation superset, tombstones),
journals (`door.journal`), writes atomically and finishes (`door.finish`: evidence, compaction
and fragment GC, audit, one commit). May import every layer up to `index`.
"""
