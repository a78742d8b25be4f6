"""Dreaming: turning undreamed fragments into topic shards (run, dreamers, policy, triggers)."""
