"""Dreaming: a run in TypeClaw's order, the dreamers (offline and Anthropic) behind one tool
protocol, the review policy, the gates and the watcher. The top layer of core: may import all.
"""
