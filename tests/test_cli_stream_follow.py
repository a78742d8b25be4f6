"""`dreamdeck stream --follow` prints appends live, and a compaction rewrite does not repeat lines."""
from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time

from dreamdeck.core.store.streams import append_fragment, write_path_for
from tests.support.processes import start_cli

TODAY = "2026-05-22"


def read_lines_until(proc, predicate, timeout: float) -> list[str]:
    """Lines the process printed, read from the raw pipe (no Python buffering hiding lines
    from select) until `predicate(lines)` holds or the timeout passes."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    lines: list[str] = []
    pending = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not predicate(lines):
        if sel.select(timeout=0.1):
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            pending += chunk
            *done, pending = pending.split(b"\n")
            lines += [d.decode("utf-8") for d in done]
    return lines


def _stopped(proc) -> None:
    """SIGINT stops the follow; a process still running a minute later is a hang, and its
    threads' stacks (faulthandler, on SIGABRT) say where (seen twice in full suites, never alone)."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=60)  # generous: a starved process on a loaded 2-core runner
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        try:
            _out, err = proc.communicate(timeout=30)  # read while it writes: a full pipe blocks it
        except subprocess.TimeoutExpired:
            proc.kill()
            _out, err = proc.communicate()
        raise AssertionError("`stream --follow` did not stop on SIGINT; where it was:\n"
                             + err.decode("utf-8", "replace")[-6000:]) from None


def test_follow_prints_new_fragments_and_not_again_after_a_rewrite(ws, agent_dir, monkeypatch):
    append_fragment(ws, "pm", "already there before following")
    monkeypatch.setenv("PYTHONFAULTHANDLER", "1")
    proc = start_cli(agent_dir, "stream", "--follow", today=TODAY)
    try:
        first = read_lines_until(proc, lambda ls: any("already there" in l for l in ls), 15)
        assert any("already there" in l for l in first)
        append_fragment(ws, "ci", "appended while following")
        live = read_lines_until(proc, lambda ls: any("appended while following" in l for l in ls), 10)
        assert any("[ci] appended while following" in l for l in live)
        # A compaction-style rewrite (new inode) must not replay what was already printed.
        path = write_path_for(ws, TODAY)
        data = path.read_bytes()
        tmp = path.with_suffix(".tmp2")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        append_fragment(ws, "tz", "after the rewrite")
        after = read_lines_until(proc, lambda ls: any("after the rewrite" in l for l in ls), 10)
        assert any("after the rewrite" in l for l in after), after
        assert not any("already there" in l or "appended while following" in l for l in after)
    finally:
        _stopped(proc)
    assert proc.returncode in (0, 130)
    assert b"Traceback" not in proc.stderr.read()


def test_sigterm_stops_the_follow_cleanly_as_sigint_does(ws, agent_dir):
    """Both signals set a flag the loop polls (`cli.stop_signals`): nothing can swallow it, and the
    follow ends with status 0 and no traceback."""
    append_fragment(ws, "pm", "already there before following")
    proc = start_cli(agent_dir, "stream", "--follow", today=TODAY)
    read_lines_until(proc, lambda ls: any("already there" in l for l in ls), 15)
    time.sleep(0.3)  # inside the follow loop
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    assert proc.returncode == 0
    assert b"Traceback" not in proc.stderr.read()
