"""Stores: one file family each (streams, tombstones, the dreaming state and its index, the
audit log, the proposals file, reflections, receipts, settings, shard files). A store reads and
writes its own files; it never goes through the door and never decides for another store.
May import every layer below: `errors`, `io`, `formats`, `claims`, `workspace`, `git`.
"""
