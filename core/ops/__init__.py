"""Verbs: what people, scripts and agents do to memory (decide reflections and proposals, pin,
forget, roll back, edit, doctor, verify, alerts, reports). Each mutation builds a ChangeSet for
the door. May import every layer up to `door`.
"""
