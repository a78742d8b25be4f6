"""The app's tests: Pilot-driven screens and their snapshots."""
