"""The citation-range projection behind the GC's day-scoped citation judgment: it skips files
that cannot cite the asked days, and never a file that might (real files, real stats, no mocks).

Trust needs a file's mtime AND ctime to be more than 2 s older than the query, and ctime cannot
be back-dated. Most tests therefore run the query on a clock 10 s ahead (`LATER`), the way a
later process would see these files; one test waits out the real 2 s in real fresh processes.
"""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dreamdeck.core.formats.citations import citation_keys
from dreamdeck.core.index import citation_ranges
from dreamdeck.core.index.citation_ranges import FILENAME, CitationRanges, date_range
from dreamdeck.core.index.evidence import cited_keys, cited_on_days
from dreamdeck.core.io.cache import clear_all
from tests.support import REPO
from tests.support.memory import cite, fragment_line, shard_text, the_next_day, uuid_at, write_shard, write_stream

D0, D1, D = "2026-05-18", "2026-05-20", "2026-05-22"


def LATER() -> int:
    return time.time_ns() + 10_000_000_000


def forget_process_caches() -> None:
    """What a fresh process starts with: no in-process caches, only the persisted projection."""
    clear_all()


def query(ws, days, now_ns=None, keep_caches=False):
    if not keep_caches:
        forget_process_caches()
    return cited_on_days(ws, set(days), now_ns=now_ns)


def brute_force(root: Path, days) -> set:
    """Read every flat, non-dot `*.md` regular file of topics/vault/archive; filter by day."""
    out = set()
    for area in ("topics", "vault", "archive"):
        folder = root / "memory" / area
        if not folder.is_dir():
            continue
        for p in folder.iterdir():
            if p.name.endswith(".md") and not p.name.startswith(".") and p.is_file():
                out |= {k for k in citation_keys(p.read_bytes().decode("utf-8", "replace")) if k[0] in days}
    return out


def projection(ws) -> dict:
    return CitationRanges.of(ws).entries


def rewrite_in_place(path: Path, text: str) -> os.stat_result:
    """Overwrite the same inode with bytes of the same length and put the old mtime back, as
    `touch -d` or `rsync -t` would: only ctime can tell. Returns the stat from before."""
    before = os.stat(path)
    data = text.encode("utf-8")
    assert len(data) == before.st_size, "the rewrite must keep the size"
    # Wait for the kernel's coarse clock to move, so the rewrite gets a new ctime (in real use
    # the 2 s racy window guarantees it; the LATER clock skips that window).
    while True:
        with open(path, "r+b") as fh:
            fh.write(data)
            fh.truncate()
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        if os.stat(path).st_ctime_ns != before.st_ctime_ns:
            break
        time.sleep(0.005)
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    return before


# --- 1. always the brute-force answer ------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_the_day_scoped_answer_equals_a_brute_force_scan_across_random_edits(ws, agent_dir, seed):
    rng = random.Random(seed)
    days = [f"2026-05-{d:02d}" for d in range(14, 23)]
    areas = ["topics", "topics", "topics", "vault", "archive"]
    names = [f"s{i}" for i in range(14)]

    def random_text(heading: str) -> str:
        cites = [cite(rng.choice(days), rng.randrange(6)) for _ in range(rng.randrange(0, 5))]
        prose = " Also see " + cite(rng.choice(days), rng.randrange(6)) if rng.random() < 0.2 else ""
        if rng.random() < 0.1:  # looks like a citation to a cheap scan, is not one
            prose += f" https://example.org/{rng.choice(days)}#x"
        return shard_text(heading + prose, cites)

    def edit() -> None:
        area, name = rng.choice(areas), rng.choice(names)
        path = agent_dir / "memory" / area / f"{name}.md"
        roll = rng.random()
        if roll < 0.15 and path.exists():
            path.unlink()
        elif roll < 0.35 and path.exists():
            # same size, mtime put back: swap one cited date for another (same length)
            text = path.read_text()
            found = [d for d in days if f"/{d}#" in text]
            if found:
                rewrite_in_place(path, text.replace(f"/{rng.choice(found)}#", f"/{rng.choice(days)}#", 1))
        elif roll < 0.42:
            # not shards: nested, dot-named, other suffix, a folder named like a shard
            odd = rng.choice([f"{area}/sub/{name}.md", f"{area}/.{name}.md", f"{area}/{name}.txt"])
            write_shard(agent_dir, odd[:-3] if odd.endswith(".md") else odd, random_text("Odd"), folder=".")
            if odd.endswith(".txt"):
                (agent_dir / "memory" / f"{odd}.md").rename(agent_dir / "memory" / odd)
        elif roll < 0.45:
            (agent_dir / "memory" / area / f"dir{name}.md").mkdir(parents=True, exist_ok=True)
        else:
            write_shard(agent_dir, name, random_text(f"Belief {name}"), folder=area)
            if rng.random() < 0.5:  # an old-looking mtime on a new ctime
                old = time.time_ns() - 3600 * 10**9
                os.utime(agent_dir / "memory" / area / f"{name}.md", ns=(old, old))

    for step in range(40):
        for _ in range(rng.randrange(1, 4)):
            edit()
        asked = set(rng.sample(days, rng.choice([1, 1, 2, 3])))
        clock = None if rng.random() < 0.25 else LATER()
        keep = rng.random() < 0.3  # sometimes the in-process cache answers too
        scan = query(ws, asked, now_ns=clock, keep_caches=keep)
        assert scan.keys == brute_force(agent_dir, asked), f"seed {seed} step {step} days {sorted(asked)}"
        assert cited_keys(ws, days=asked) == scan.keys
        assert scan.files == scan.skipped + scan.read + scan.cached
        # the projection only ever describes files that are there
        assert set(projection(ws)) <= {
            f"{a}/{p.name}" for a in ("topics", "vault", "archive")
            if (agent_dir / "memory" / a).is_dir()
            for p in (agent_dir / "memory" / a).iterdir() if p.is_file() and p.suffix == ".md"
        }
        time.sleep(0.005)  # the next edits tick the coarse clock past what was just recorded


# --- the range's cheap scan never misses a date citation_keys finds ------------------------------
PIECES = [b"streams", b"memory", b"Streams", b"/", b"#", b"2026-05-22", b"2026-05-2", b"1999-12-31", b"abc",
          b"-", b"_", b"x", b" ", b"\n", "\u00e9".encode(), b"\xff", b"\xe2\x28", b"\xe2\x82", b"\x00", b"\xef\xbc\x8f"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_the_date_range_holds_every_date_citation_keys_finds_in_any_bytes(pieces):
    data = b"".join(pieces)
    found = {d for d, _ in citation_keys(data.decode("utf-8", "replace"))}
    lo, hi = date_range(data)
    assert all(lo is not None and lo <= d <= hi for d in found)


def test_the_date_range_of_tricky_text():
    # the first id swallows "streams" of the second: citation_keys sees one date, the range two
    text = "streams/2026-01-01#abcstreams/2026-01-02#x memory/2026-03-04#y streams/2026-09-09# é"
    assert {d for d, _ in citation_keys(text)} == {"2026-01-01", "2026-03-04"}
    assert date_range(text.encode()) == ("2026-01-01", "2026-03-04")
    assert date_range(b"no citations, a/2026-01-01# b") == (None, None)


# --- 2. the skip -------------------------------------------------------------------------------------
def many_shards(root: Path, n: int = 200, citing_today=(3, 77, 150)) -> None:
    for i in range(n):
        keys = [cite(D0, i), cite(D1, i + 1)] + ([cite(D, i)] if i in citing_today else [])
        write_shard(root, f"t{i:04d}", shard_text(f"Belief {i}", keys))
    write_shard(root, "p", shard_text("Pinned", [cite(D0, 999)]), folder="vault")


@pytest.mark.perf_contract(reason="with the projection built, a day only three shards cite reads those three files, not all 201")
def test_with_the_projection_built_a_day_only_three_files_cite_reads_only_those_three(ws, agent_dir):
    many_shards(agent_dir)

    cold = query(ws, {D}, now_ns=LATER())
    assert cold.read == 201 and cold.skipped == 0

    warm = query(ws, {D}, now_ns=LATER())
    assert warm.keys == {(D, uuid_at(D, i)) for i in (3, 77, 150)}
    assert (warm.files, warm.read, warm.skipped) == (201, 3, 198)

    # a range is a range: the three span D0..D, so a day inside it reads them (and finds nothing)
    inside = query(ws, {"2026-05-21"}, now_ns=LATER())
    assert inside.keys == set() and inside.read == 3
    nobody = query(ws, {"2026-05-23"}, now_ns=LATER())
    assert nobody.keys == set() and nobody.read == 0
    assert citation_ranges.last_scan() is nobody


@pytest.mark.perf_contract(reason="a fresh process reads only the shard files whose citation range covers the day")
def test_a_fresh_process_on_the_real_clock_reads_only_the_files_that_can_cite_the_day(ws, agent_dir):
    many_shards(agent_dir)
    time.sleep(2.2)  # the real racy window: after it, every file is old enough to be trusted
    code = (
        "import sys; from dreamdeck.core.workspace import Workspace; from dreamdeck.core.index.evidence import cited_on_days\n"
        f"s = cited_on_days(Workspace.open({str(agent_dir)!r}), {{{D!r}}})\n"
        "print(s.read, s.skipped, len(s.keys))\n"
    )

    def fresh_process() -> list[int]:
        out = subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, capture_output=True, text=True)
        return [int(x) for x in out.stdout.split()]

    assert not (ws.lock_dir / FILENAME).exists()
    assert fresh_process() == [201, 0, 3]  # cold: builds the projection
    assert fresh_process() == [3, 198, 3]  # warm: reads the three


# --- 3. safety: a back-dated, same-size rewrite ----------------------------------------------------
def test_a_same_size_rewrite_with_its_mtime_put_back_is_reread_because_its_ctime_moved(ws, agent_dir):
    many_shards(agent_dir, n=20, citing_today=())
    path = agent_dir / "memory/topics/t0005.md"
    assert query(ws, {D}, now_ns=LATER()).keys == set()
    assert query(ws, {D}, now_ns=LATER()).read == 0  # every file ruled out by its range

    old_text = path.read_text()
    rewrite_in_place(path, old_text.replace(cite(D0, 5), cite(D, 5)))

    for keep in (False, True):  # a fresh process, and this one with its in-process cache
        scan = query(ws, {D}, now_ns=LATER(), keep_caches=keep)
        assert scan.keys == {(D, uuid_at(D, 5))}
        assert scan.read == 1 or (keep and scan.cached == 1)


def test_the_gc_keeps_a_dreamed_fragment_only_a_back_dated_same_size_rewrite_cites(ws, agent_dir):
    from dreamdeck.core.door.apply import apply_changeset
    from dreamdeck.core.door.changeset import ChangeSet, Commit, Evidence, FileEdit, Writes
    from tests.support.memory import commit_all

    stream = write_stream(agent_dir, D, [fragment_line(D, 1, "e", "cited by the edited shard"),
                                         fragment_line(D, 2, "x", "cited by nobody")])
    write_shard(agent_dir, "e", shard_text("Belief e", [cite(D1, 5)]))
    write_shard(agent_dir, "f", shard_text("Belief f", [cite(D1, 6)]))
    commit_all(agent_dir)
    assert query(ws, {D}, now_ns=LATER()).keys == set()  # the projection: e cites only D1
    e = agent_dir / "memory/topics/e.md"
    assert projection(ws)["topics/e.md"][4:] == [D1, D1]

    # By hand, outside the door: e now cites D#1, same size, mtime put back.
    rewrite_in_place(e, shard_text("Belief e", [cite(D, 1)]))
    forget_process_caches()

    edit = FileEdit("topics/g.md", None, shard_text("Belief g", [cite(D1, 7)]))
    result = apply_changeset(the_next_day(ws), ChangeSet(  # D's file quiet: the GC may rewrite it
        Commit("dream", "dreamer:test", "auto", "test", "a dream"),
        Writes([edit]),
        Evidence(advance={D: {uuid_at(D, 1), uuid_at(D, 2)}}, gc_days={D}),
    ))

    on_disk = stream.read_text()
    assert uuid_at(D, 1) in on_disk  # cited: kept
    assert uuid_at(D, 2) not in on_disk  # dreamed and uncited: the GC did run
    assert result.compaction.fragments_dropped == [(D, uuid_at(D, 2))]


# --- 4. the racy window ------------------------------------------------------------------------------
def test_a_file_changed_within_the_last_two_seconds_is_read_again_next_time(ws, agent_dir):
    many_shards(agent_dir, n=10, citing_today=())
    query(ws, {D}, now_ns=LATER())
    assert query(ws, {D}, now_ns=LATER()).read == 0

    # Real clock from here. Neither the projection nor this process's cache keeps a fresh file.
    quiet = write_shard(agent_dir, "quiet", shard_text("Quiet", [cite(D1, 1)]))  # out of D's range
    loud = write_shard(agent_dir, "loud", shard_text("Loud", [cite(D, 2)]))  # cites D
    for keep in (False, True, True):
        scan = query(ws, {D}, keep_caches=keep)
        assert (scan.read, scan.cached, scan.keys) == (2, 0, {(D, uuid_at(D, 2))})
        assert {"topics/quiet.md", "topics/loud.md"}.isdisjoint(projection(ws))

    # An old-looking mtime does not help: the ctime is new.
    old = time.time_ns() - 3600 * 10**9
    for path in (quiet, loud):
        os.utime(path, ns=(old, old))
    assert query(ws, {D}, keep_caches=True).read == 2
    assert {"topics/quiet.md", "topics/loud.md"}.isdisjoint(projection(ws))

    # Once they have settled (a query 10 s on), they are recorded: quiet is skipped, loud comes
    # from this process's cache or, in a fresh one, is the only file read.
    assert query(ws, {D}, now_ns=LATER(), keep_caches=True).read == 2
    assert projection(ws)["topics/quiet.md"][4:] == [D1, D1]
    again = query(ws, {D}, now_ns=LATER(), keep_caches=True)
    assert (again.read, again.cached, again.skipped) == (0, 1, 12)
    assert query(ws, {D}, now_ns=LATER()).read == 1


# --- 5. a broken projection file ---------------------------------------------------------------------
def lying_stamp_entries(ws, agent_dir) -> dict:
    """Entries with the files' real stamps and a range that would wrongly rule them out, each
    with one wrong type, so accepting them would lose citations."""
    out = {}
    for p in sorted((agent_dir / "memory/topics").iterdir()):
        st = os.stat(p)
        out[f"topics/{p.name}"] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, "2020-01-01", "2020-01-02"]
    rels = sorted(out)
    out[rels[0]][0] = str(out[rels[0]][0])  # a size as a string
    out[rels[1]][4] = 20200101  # a date as a number
    out[rels[2]] = out[rels[2]][:5]  # too short
    out[rels[3]][5] = "2019-01-01"  # max before min
    out[rels[4]][3] = True  # a bool for the inode
    out[rels[5]] = {"size": out[rels[5]][0]}  # not a list
    return {"version": 1, "files": out}


@pytest.mark.parametrize("content", [
    b"", b"[", b"{", b'{"version": 1, "files": {"topics/t0003.md": [1, 2', b"\xff\xfe\x00garbage",
    b"[]", b"null", b"17", b'{"x": 1}', b'{"version": 1, "files": []}', b'{"version": 2, "files": {}}',
    "lying", "directory",
])
def test_a_garbage_truncated_or_wrong_shaped_projection_is_ignored_and_rebuilt(ws, agent_dir, content):
    many_shards(agent_dir, n=6, citing_today=(0, 1, 2, 3, 4, 5))
    target = ws.lock_dir / FILENAME
    if content == "directory":
        target.mkdir()
    elif content == "lying":
        target.write_text(json.dumps(lying_stamp_entries(ws, agent_dir)))
    else:
        target.write_bytes(content)

    want = brute_force(agent_dir, {D})
    assert len(want) == 6
    scan = query(ws, {D}, now_ns=LATER())
    assert scan.keys == want and scan.read == 7 and scan.skipped == 0

    if content == "directory":
        assert target.is_dir() and not list(ws.lock_dir.glob(f".{FILENAME}.*"))  # no tmp left
        return
    rebuilt = json.loads(target.read_text())
    assert rebuilt["version"] == 1 and len(rebuilt["files"]) == 7
    assert query(ws, {D0}, now_ns=LATER()).keys == brute_force(agent_dir, {D0})
    assert query(ws, {"2026-05-23"}, now_ns=LATER()).read == 0  # trusted again


def test_a_long_lived_process_sees_the_projection_another_process_replaced(ws, agent_dir):
    """The app and the watcher keep the projection they last read or wrote, keyed by the file's
    stamp; when another process replaces the file, this process reads the new one."""
    many_shards(agent_dir, n=6, citing_today=(0, 1, 2, 3, 4, 5))
    want = brute_force(agent_dir, {D})
    assert query(ws, {D}, now_ns=LATER()).keys == want
    assert len(CitationRanges.of(ws).entries) == 7
    target = ws.lock_dir / FILENAME
    tmp = target.with_name("other-process.json")
    tmp.write_text(json.dumps({"version": 1, "files": {}}))
    os.replace(tmp, target)  # as another dreamdeck process saves it: a rename, a new inode
    assert CitationRanges.of(ws).entries == {}
    scan = query(ws, {D}, now_ns=LATER(), keep_caches=True)
    assert scan.keys == want and scan.skipped == 0 and len(CitationRanges.of(ws).entries) == 7


# --- 6. deletions and new files ----------------------------------------------------------------------
@pytest.mark.perf_contract(reason="only changed files are read again, and an unchanged projection file is not rewritten")
def test_deleted_files_leave_the_projection_and_new_or_renamed_files_citing_the_day_are_found(ws, agent_dir):
    many_shards(agent_dir, n=10, citing_today=(2,))
    write_shard(agent_dir, "old", shard_text("Archived", [cite(D, 40)]), folder="archive")
    query(ws, {D}, now_ns=LATER())
    assert {"topics/t0002.md", "topics/t0003.md", "archive/old.md", "vault/p.md"} <= set(projection(ws))

    (agent_dir / "memory/topics/t0002.md").unlink()
    (agent_dir / "memory/archive/old.md").unlink()
    (agent_dir / "memory/topics/t0003.md").rename(agent_dir / "memory/vault/t0003.md")
    write_shard(agent_dir, "t0004", shard_text("Rewritten", [cite(D, 44)]))  # replaced, new inode
    write_shard(agent_dir, "brand-new", shard_text("New", [cite(D, 50)]), folder="archive")

    scan = query(ws, {D}, now_ns=LATER())
    assert scan.keys == {(D, uuid_at(D, 44)), (D, uuid_at(D, 50))} == brute_force(agent_dir, {D})
    entries = projection(ws)
    assert "topics/t0002.md" not in entries and "archive/old.md" not in entries
    assert "topics/t0003.md" not in entries and "vault/t0003.md" in entries
    assert entries["archive/brand-new.md"][4:] == [D, D]

    # only the files that changed were read; after that, only the two that cite D
    assert scan.read == 3
    assert query(ws, {D}, now_ns=LATER()).read == 2

    # nothing changed: the projection file is not rewritten
    before = os.stat(ws.lock_dir / FILENAME).st_mtime_ns, os.stat(ws.lock_dir / FILENAME).st_ino
    time.sleep(0.01)
    query(ws, {D}, now_ns=LATER())
    assert (os.stat(ws.lock_dir / FILENAME).st_mtime_ns, os.stat(ws.lock_dir / FILENAME).st_ino) == before


def test_the_unscoped_answer_and_a_missing_memory_folder_are_unchanged(ws, agent_dir):
    assert cited_keys(ws, days={D}) == set()  # no memory/ at all
    many_shards(agent_dir, n=5, citing_today=(1,))
    assert cited_keys(ws) == brute_force(agent_dir, {D0, D1, D})
