"""Fixed scenes for the snapshot tests; each one also opens by hand for a look:
`python -m tests.tui.apps.topics_app` from the repository root."""
