"""Formats: the bytes of TypeClaw's memory and of dreamdeck's own files, as text.

Pure functions over strings and bytes (parse, render, recompute), no file access. May import
`errors` and `io` (a memo cache) only.
"""
