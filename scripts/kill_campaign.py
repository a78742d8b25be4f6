"""Kill dreamdeck's mutating verbs at random instants on a demo workspace and check what is left.

Issue 10 (item 9) found 28 of 270 random kills leaving files written with no commit. The tests
kill at every named step of the door; this campaign kills at *random* instants (inside git, inside
a write, between steps no hook names) and, after each kill, checks what a person relies on:

- `doctor` names the interrupted state or says healthy (it never crashes), and `doctor --fix`
  leaves a healthy workspace;
- nothing cited is lost (`verify` exits 0);
- nothing dreamdeck wrote is left uncommitted under memory/ (agent appends to the streams are
  the agent's, not dreamdeck's: only lines appended by `remember` may be uncommitted);
- no temporary file is left under memory/ and no `.git/index.lock` remains;
- every commit made since the start carries its `Change-Id:` trailer.

    python scripts/kill_campaign.py [--runs 100] [--seed 1] [--keep DIR] [--mode verbs|watch|losses]

`--mode watch` kills `dreamdeck watch` (dreaming and applying) while an agent appends to today's
stream, a line per write() through a descriptor it keeps open, and `remember` appends too; every
fragment appended must then be in a stream or recorded as collected by a commit. `--mode losses`
removes fragment lines as another writer would (TypeClaw's GC, committed or not) and kills
`doctor --restore-losses` / `--accept-losses`; every removed fragment must then be back in a
stream, named by `doctor`, or named as accepted in a commit.

It prints one line per run and a summary; exit 1 if any run broke a check. It is not part of
the suite (it takes minutes): run it after a change to the door.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

EXE = [sys.executable, "-m", "dreamdeck"]
# What `doctor --fix` must always clear after a kill (the rest needs a person's judgement).
AFTER_FIX_NEVER = {"journal", "temp-file", "corrupt-state", "stale-frontmatter", "missing-fragment", "unparseable"}


def run(ws: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EXE, "-w", str(ws), *args], capture_output=True, text=True, timeout=timeout)


def git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(ws), *args], capture_output=True, text=True, check=True).stdout


def pending(ws: Path, kind: str) -> list[str]:
    out = run(ws, "review", "--json")
    try:
        items = json.loads(out.stdout)["items"]
    except (ValueError, KeyError):
        return []
    return [i["id"] for i in items if i["id"].startswith(kind)]


def fragment_keys(ws: Path) -> list[str]:
    keys = []
    for line in run(ws, "stream", "--all", "--json").stdout.splitlines():
        try:
            f = json.loads(line)
        except ValueError:
            continue
        if f.get("type") == "fragment":
            keys.append(f"{f['date']}#{f['id']}")
    return keys


def slugs(ws: Path) -> list[str]:
    return sorted(p.stem for p in (ws / "memory" / "topics").glob("*.md"))


def pick_verb(ws: Path, rng: random.Random) -> list[str]:
    """A mutating command that has something to act on now."""
    choices: list[list[str]] = [["dream"], ["dream", "--review", "all"]]
    refl, props = pending(ws, "r-"), pending(ws, "p-")
    if refl:
        r = rng.choice(refl)
        choices += [["approve", r], ["approve", r, "--hunk", "1"], ["reject", r, "--reason", "campaign"],
                    ["reject", r, "--reason", "campaign", "--release"]]
    if props:
        choices += [["approve", rng.choice(props)]]
    keys = fragment_keys(ws)
    if keys:
        k = rng.choice(keys)
        choices += [["forget", k, "--reason", "campaign"], ["forget", k, "--reason", "campaign", "--hard"]]
    names = slugs(ws)
    if names:
        s = rng.choice(names)
        choices += [["pin", s], ["unpin", s], ["forget", s, "--reason", "campaign"]]
    forgotten = [words[0] for words in map(str.split, run(ws, "tombstones").stdout.splitlines())
                 if words and "#" in words[0] and words[1:2] == ["soft"]]
    if forgotten:
        choices += [["unforget", rng.choice(forgotten)]]
    # the recovery itself, killed while it finishes a change another kill interrupted
    choices += [["rollback", "HEAD"], ["doctor", "--fix"]]
    return rng.choice(choices)


def add_fragments(ws: Path, rng: random.Random, n: int) -> None:
    topics = ["deploy process", "test runner", "on call", "release cadence", "值班", "배포"]
    for i in range(n):
        t = rng.choice(topics)
        run(ws, "remember", "--topic", t, f"observation {rng.randrange(10**6)} about {t} number {i}")


def uncommitted_by_dreamdeck(ws: Path, appended: set[str]) -> list[str]:
    """Paths under memory/ that differ from HEAD, except streams only grown by `remember`."""
    out = git(ws, "status", "--porcelain", "--untracked-files=all", "--", "memory")
    bad = []
    for line in out.splitlines():
        path = line[3:]
        if path.startswith("memory/streams/") and line[:2].strip() in ("M", "??"):
            diff = git(ws, "diff", "--no-color", "-U0", "--", path) if line[:2].strip() == "M" else ""
            removed = [d for d in diff.splitlines() if d.startswith("-") and not d.startswith("---")]
            if not removed:
                continue
        if path.startswith("memory/streams/") and path in appended:
            continue
        bad.append(line)
    return bad


FOREIGN: set[str] = set()  # commits the campaign made as another writer (TypeClaw): no Change-Id expected


def check(ws: Path, start: str, appended: set[str]) -> list[str]:
    problems = []
    doctor = run(ws, "doctor", "--json")
    if "Traceback" in doctor.stderr:
        problems.append("doctor crashed: " + doctor.stderr.strip().splitlines()[-1])
    fix = run(ws, "doctor", "--fix", "--json")
    if "Traceback" in fix.stderr:
        problems.append("doctor --fix crashed: " + fix.stderr.strip().splitlines()[-1])
    after = run(ws, "doctor", "--json")
    try:
        report = json.loads(after.stdout)
        left = sorted({f.get("kind", "?") for f in report.get("findings", [])} & AFTER_FIX_NEVER)
        if left:
            problems.append(f"after --fix still: {left}")
    except ValueError:
        problems.append("doctor --json unreadable: " + after.stdout[:80] + after.stderr[:80])
    left = uncommitted_by_dreamdeck(ws, appended)
    if left:
        problems.append(f"uncommitted after --fix: {left[:3]}")
    verify = run(ws, "verify")
    if verify.returncode != 0:
        problems.append("verify: " + (verify.stdout + verify.stderr).strip().splitlines()[-1][:120])
    tmp = [str(p.relative_to(ws)) for p in (ws / "memory").rglob("*") if p.name.endswith(".tmp") or ".tmp." in p.name]
    if tmp:
        problems.append(f"temporary files left: {tmp[:3]}")
    if (ws / ".git" / "index.lock").exists():
        problems.append(".git/index.lock left")
    for sha in git(ws, "rev-list", f"{start}..HEAD").split():
        body = git(ws, "log", "-1", "--format=%B", sha)
        if "Change-Id:" not in body and sha not in FOREIGN:
            problems.append(f"commit {sha[:8]} without Change-Id: {body.splitlines()[0][:60]}")
    return problems


def stream_ids(ws: Path) -> set[str]:
    """`date#id` of every fragment line in the stream files, read directly (no dreamdeck view)."""
    out = set()
    for path in (ws / "memory" / "streams").glob("*.jsonl"):
        for raw in path.read_bytes().splitlines():
            try:
                ev = json.loads(raw)
            except ValueError:
                continue
            if isinstance(ev, dict) and ev.get("type") == "fragment":
                out.add(f"{path.stem}#{ev.get('id')}")
    return out


class Records:
    """What dreamdeck recorded about fragments leaving the streams: each commit's collected list
    (`dreamdeck collected REV`) and every commit message since the start."""

    def __init__(self, ws: Path, start: str):
        self.ws, self.start, self.seen, self.text = ws, start, set(), ""

    def refresh(self) -> str:
        for sha in git(self.ws, "rev-list", f"{self.start}..HEAD").split():
            if sha not in self.seen:
                self.seen.add(sha)
                self.text += run(self.ws, "collected", "--json", sha).stdout + git(self.ws, "log", "-1", "--format=%B", sha)
        return self.text


def unaccounted(ws: Path, keys: set[str], records: Records) -> list[str]:
    """Keys neither in a stream, nor recorded as collected or accepted, nor forgotten, nor named by doctor."""
    held = stream_ids(ws)
    missing = [k for k in keys if k not in held]
    if not missing:
        return []
    text = records.refresh() + run(ws, "tombstones", "--json").stdout + run(ws, "doctor", "--json").stdout
    return sorted(k for k in missing if k.split("#", 1)[1] not in text)


class HeldOpenAppender(threading.Thread):
    """An agent writing today's stream through one O_APPEND descriptor, a line per write()."""

    def __init__(self, ws: Path, rng: random.Random, tag: int):
        super().__init__(daemon=True)
        self.path = ws / "memory" / "streams" / f"{time.strftime('%Y-%m-%d')}.jsonl"
        self.rng, self.tag, self.stop, self.keys = random.Random(rng.random()), tag, threading.Event(), set()

    def run(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            n = 0
            while not self.stop.is_set():
                n += 1
                fid = f"01a2{self.tag:04x}-{n:04x}-7000-8000-{self.rng.randrange(16**12):012x}"
                line = {"type": "fragment", "id": fid, "ts": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
                        "source": "01a0d7a7-9800-7f2a-9944-c9c3269e0d37", "text": f"held-open note {self.tag}.{n} about deploys"}
                os.write(fd, (json.dumps(line, separators=(",", ":")) + "\n").encode())
                self.keys.add(f"{self.path.stem}#{fid}")
                time.sleep(0.02)
        finally:
            os.close(fd)


def watch_run(ws: Path, rng: random.Random, i: int, max_delay: float) -> tuple[str, bool, str, set[str]]:
    """`dreamdeck watch` dreaming while an agent and `remember` append; killed at a random instant."""
    writer = HeldOpenAppender(ws, rng, i)
    writer.start()
    proc = subprocess.Popen([*EXE, "-w", str(ws), "watch", "--dreamer", "offline", "--review",
                             rng.choice(["none", "judgement", "all"])],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    remembered = set()
    deadline = time.monotonic() + rng.uniform(0.5, max_delay * 4)
    while time.monotonic() < deadline:
        out = run(ws, "remember", "--topic", "deploy process", f"remembered {rng.randrange(10**6)} during watch").stdout
        remembered |= {w.removeprefix("streams/") for w in out.split() if w.startswith("streams/")}
    was_running = proc.poll() is None
    if was_running:
        os.killpg(proc.pid, signal.SIGKILL)
    writer.stop.set()
    writer.join()
    _, err = proc.communicate()
    return "watch + appenders", was_running, err, writer.keys | remembered


def remove_lines_outside(ws: Path, rng: random.Random) -> set[str]:
    """Drop 1-3 fragment lines no topic cites, as TypeClaw's GC would; commit like its dream
    (skip-worktree cleared, `git add -f memory/`, set again) half the time."""
    from dreamdeck.core.git.commit import set_skip_worktree

    cited = b"".join(p.read_bytes() for p in (ws / "memory" / "topics").glob("*.md"))
    files = [p for p in (ws / "memory" / "streams").glob("*.jsonl") if p.stat().st_size]
    removed: set[str] = set()
    for path in rng.sample(files, min(len(files), rng.randint(1, 3))):
        lines = path.read_bytes().splitlines(keepends=True)
        frags = [n for n, raw in enumerate(lines)
                 if b'"type":"fragment"' in raw and json.loads(raw)["id"].encode() not in cited]
        if not frags:
            continue
        n = rng.choice(frags)
        removed.add(f"{path.stem}#{json.loads(lines[n])['id']}")
        path.write_bytes(b"".join(lines[:n] + lines[n + 1:]))
    if removed and rng.random() < 0.5:
        set_skip_worktree(ws, False)
        git(ws, "add", "-f", "memory/")
        git(ws, "commit", "-q", "-m", "dream: 3 fragments 🌙")
        FOREIGN.add(git(ws, "rev-parse", "HEAD").strip())
        set_skip_worktree(ws, True)
    if rng.random() < 0.5:
        run(ws, "dream", "--review", "all")  # the door records what it sees gone (outside-losses.json)
    return removed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-delay", type=float, default=1.5, help="kill within this many seconds")
    ap.add_argument("--keep", type=Path, help="build the workspace here and keep it")
    ap.add_argument("--mode", choices=["verbs", "watch", "losses"], default="verbs")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    base = args.keep or Path(tempfile.mkdtemp(prefix="kill-campaign-"))
    ws = base / "demo"
    if ws.exists():
        shutil.rmtree(ws)
    subprocess.run([*EXE, "demo", str(ws), "--no-open"], check=True, capture_output=True)
    start = git(ws, "rev-parse", "HEAD").strip()
    broken = killed = 0
    records = Records(ws, start)
    for i in range(args.runs):
        watched: set[str] = set()
        appended = {line[3:] for line in git(ws, "status", "--porcelain", "--", "memory/streams").splitlines()}
        if args.mode == "watch":
            name, was_running, err, watched = watch_run(ws, rng, i, args.max_delay)
            appended |= {line[3:] for line in git(ws, "status", "--porcelain", "--", "memory/streams").splitlines()}
            delay = 0.0
        else:
            if args.mode == "losses":
                watched = remove_lines_outside(ws, rng)
                verb = ["doctor", rng.choice(["--restore-losses", "--accept-losses"])]
            else:
                add_fragments(ws, rng, rng.randrange(0, 4))
                verb = pick_verb(ws, rng)
            name = " ".join(verb)
            proc = subprocess.Popen([*EXE, "-w", str(ws), *verb], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                    text=True, start_new_session=True)
            delay = rng.uniform(0, args.max_delay)
            time.sleep(delay)
            was_running = proc.poll() is None
            if was_running:
                os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
        killed += was_running
        crash = "Traceback" in err
        problems = check(ws, start, appended)
        if crash:
            problems.append("verb crashed: " + err.strip().splitlines()[-1][:120])
        lost = unaccounted(ws, watched, records)
        if lost:
            problems.append(f"{len(lost)} fragments gone with no record: {lost[:3]}")
        tag = f"killed at {delay:.2f}s" if was_running else "finished"
        print(f"{i:3d} {name[:60]:60s} {tag:16s} {'OK' if not problems else 'BROKEN'}", flush=True)
        for p in problems:
            print(f"      {p}")
        broken += bool(problems)
    print(f"{args.runs} runs, {killed} killed mid-way, {broken} broken; workspace {ws}")
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
