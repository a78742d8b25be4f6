"""Local stand-ins for remote services, spoken to over real sockets (no monkeypatching)."""
