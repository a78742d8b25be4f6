"""Recall on a full disk answers one line naming where the search index could not be written,
and changes nothing in memory/.

Found by the attacker round (session 10): with dreamdeck's private folder on a full filesystem,
`dreamdeck recall` printed SQLite's "database or disk is full" traceback and "this is a bug in
dreamdeck" (the index could be neither opened in WAL mode nor rebuilt after being dropped).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.outside import D, seeded_agent


def _mount_tiny_disk(path: Path) -> bool:
    path.mkdir()
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(path)],
                          capture_output=True).returncode == 0


def test_recall_with_the_index_folder_on_a_full_disk_is_one_line(agent_dir, tmp_path):
    seeded = seeded_agent(agent_dir)
    disk = tmp_path / "disk"
    if os.getuid() != 0 or not _mount_tiny_disk(disk):
        pytest.skip("needs a small tmpfs (root)")
    try:
        (disk / "cache").mkdir(mode=0o700)
        st = os.statvfs(disk)
        (disk / "filler").write_bytes(b"x" * (st.f_bavail * st.f_frsize))  # nothing left
        before = sorted((p.relative_to(seeded), p.read_bytes()) for p in (seeded / "memory").rglob("*") if p.is_file())

        proc = subprocess.run([sys.executable, "-m", "dreamdeck", "-w", str(seeded), "--today", D, "recall", "green tea"],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "DREAMDECK_CACHE_DIR": str(disk / "cache")})

        assert proc.returncode not in (0, 70), proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "search index" in proc.stderr and str(disk / "cache") in proc.stderr, proc.stderr
        after = sorted((p.relative_to(seeded), p.read_bytes()) for p in (seeded / "memory").rglob("*") if p.is_file())
        assert after == before
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
