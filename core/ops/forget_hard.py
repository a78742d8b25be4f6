"""What a forget needs to be exact, and what a hard forget removes beyond the stream line.

- `meant_line`: the one fragment line `DATE#ID` names, by its bytes. Lines sharing the id with
  other content make the name ambiguous: refused, listing each line's content hash, until the
  person says which (`--content HASH`); identical copies are one line (the same text). A
  malformed line that starts with the id is never the meant line; it is reported as remaining.
- `meta_scrubs`: the files dreamdeck writes under `memory/meta/` that can hold a fragment's
  text (reflections/*.json, pending-reflection.md, reflection-log.md, receipts/*.json, the
  compaction backlog's reasons, the saved recall queries: one that quotes the text is dropped),
  with every verbatim piece of the text (the body, each line, each
  sentence, with or without its closing stop) replaced by `[forgotten]`. They are written by the
  door in the forget's own commit. A paraphrase is not found: only the words as written.
- the audit log (a dream's line carries its summary, which may quote a fragment) and the access
  record (a recall query that quotes the text: `store.access.scrub_access`) are scrubbed by the
  door itself, as a journaled step of the forget's change (`Evidence.scrub`):
  a kill anywhere is finished by the next mutation or `doctor --fix`. The door also deletes the
  private search index in that step (rebuilt from the files on the next query, without the text).
- `what_remains`: where the text still is after the commit, said plainly: git history (the
  commits that added or removed it), the GC notes (`refs/notes/dreamdeck-gc`), append-only logs
  other processes write (pending-memories.md), shard prose that quotes it, and malformed
  lines starting with its id; with the commands that would remove them. dreamdeck itself never
  rewrites git history.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from dreamdeck.core.errors import Refused
from dreamdeck.core.formats.citations import CITATION_LINE, SECTION_HEADING
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.events import fragment_content_hash
from dreamdeck.core.formats.json_data import load_json
from dreamdeck.core.formats.scrub import MIN_PIECE, quotes, scrub
from dreamdeck.core.formats.shards import parse_loose_shard
from dreamdeck.core.formats.stream_lines import FRAGMENT_PREFIX
from dreamdeck.core.git.notes import NOTES_REF
from dreamdeck.core.git.runner import repo_args, run_git
from dreamdeck.core.index.evidence import shard_area_files
from dreamdeck.core.store.saved_queries import SAVED_FILE
from dreamdeck.core.store.streams import read_path_for, read_stream_lines
from dreamdeck.core.workspace import Workspace

SCRUBBED_GLOBS = ("reflections/*.json", "receipts/*.json", "pending-reflection.md", "reflection-log.md",
                  "compaction-backlog.json")  # (a dreamer's noise reason may quote a fragment)
# Other processes append to these: reported, not rewritten. (The access record is appended to
# as well, but only by dreamdeck's own appender, whose lock the door takes to scrub it.)
APPEND_ONLY = ("pending-memories.md",)


@dataclass
class MeantLine:
    event: dict | None  # the meant fragment (None: not in the stream)
    raw: str | None
    malformed: list[int] = field(default_factory=list)  # line numbers of malformed lines with the id


def _content_hash(ev: dict) -> str:
    return fragment_content_hash(str(ev.get("topic", "")), str(ev.get("body", "")))


def meant_line(ws: Workspace, day: str, fid: str, content: str | None = None) -> MeantLine:
    """The fragment line `day#fid` names (see the module docstring); Refused when ambiguous."""
    lines = _day_lines(ws, day)
    malformed = _malformed(lines, fid)
    found: dict[str, tuple[dict, str, int]] = {}
    for ln in lines:
        if ln.kind == "fragment" and ln.event["id"] == fid:  # type: ignore[index]
            found.setdefault(_content_hash(ln.event), (ln.event, ln.raw.decode("utf-8"), ln.lineno))  # type: ignore[arg-type]
    if content is not None:
        content = content.strip().lower()
        found = {h: v for h, v in found.items() if h.startswith(content)}
        if not found:
            raise Refused(f"refused: no line of streams/{day}#{fid} has content {content!r}")
    if len(found) > 1:
        which = "; ".join(f"line {v[2]}: --content {h[:12]} ({str(v[0].get('topic', ''))[:30]!r})"
                          for h, v in sorted(found.items(), key=lambda kv: kv[1][2]))
        raise Refused(f"refused: {len(found)} different lines are streams/{day}#{fid}; say which with "
                      f"--content HASH ({which})")
    if not found:
        return MeantLine(None, None, malformed)
    event, raw, _ = next(iter(found.values()))
    return MeantLine(event, raw, malformed)


def malformed_lines(ws: Workspace, day: str, fid: str) -> list[int]:
    """Line numbers of the malformed lines of the day that start as fragment `fid`'s would."""
    return _malformed(_day_lines(ws, day), fid)


def _day_lines(ws: Workspace, day: str) -> list:
    path = read_path_for(ws, day)
    return read_stream_lines(path) if path is not None else []


def _malformed(lines: list, fid: str) -> list[int]:
    prefix = FRAGMENT_PREFIX + b',"id":"' + fid.encode() + b'"'
    return [ln.lineno for ln in lines if ln.event is None and ln.raw.startswith(prefix)]


def text_pieces(event: dict | None) -> list[str]:
    """The verbatim pieces of a fragment's text to look for, longest first."""
    if not event:
        return []
    body = str(event.get("body", "")).strip()
    parts: set[str] = set()
    for line in body.split("\n"):
        line = line.strip()
        parts.add(line)
        for sentence in re.split(r"(?<=[.!?])\s+", line):
            parts.add(sentence.strip())
    parts |= {p.rstrip(".!?;:") for p in parts}
    pieces = {p for p in parts if len(p) >= MIN_PIECE} | ({body} if body else set())
    return sorted(pieces, key=lambda p: (-len(p), p))


def shard_pieces(text: str) -> list[str]:
    """The verbatim pieces of a shard's own words, its heading and its prose (not its
    frontmatter's other fields, nor its citation lines and section headings), cut as
    `text_pieces` cuts a fragment's body: what a hard forget of the topic scrubs."""
    shard = parse_loose_shard(text)
    prose = [line for line in shard.body.split("\n")
             if not CITATION_LINE.match(line) and not SECTION_HEADING.match(line)]
    pieces = set(text_pieces({"body": "\n".join(prose)}))
    if shard.heading:
        pieces |= set(text_pieces({"body": shard.heading}))
    return sorted(pieces, key=lambda p: (-len(p), p))


def _scrub_json(value, pieces: list[str]):
    if isinstance(value, str):
        return scrub(value, pieces)
    if isinstance(value, list):
        return [_scrub_json(v, pieces) for v in value]
    if isinstance(value, dict):
        return {k: _scrub_json(v, pieces) for k, v in value.items()}
    return value


def meta_scrubs(ws: Workspace, pieces: list[str]) -> dict[str, str]:
    """path under memory/meta/ -> its text with the pieces replaced, for each file that changes.
    JSON files are rewritten as dreamdeck writes them (indent 2, UTF-8); one that is not valid
    JSON is scrubbed as text."""
    out: dict[str, str] = {}
    if not pieces:
        return out
    for pattern in SCRUBBED_GLOBS:
        for path in sorted(ws.meta_dir.glob(pattern)):
            if path.is_symlink() or not path.is_file():
                continue
            text = path.read_bytes().decode("utf-8", "replace")
            if not any(p in text or _escaped(p) in text for p in pieces):
                continue
            new = scrub(text, pieces)
            if path.suffix == ".json":
                try:
                    new = json.dumps(_scrub_json(load_json(text), pieces), ensure_ascii=False, indent=2) + "\n"
                except ValueError:
                    pass
            if new != text:
                out[str(path.relative_to(ws.meta_dir))] = new
    saved = _saved_without(ws, pieces)
    if saved is not None:
        out[SAVED_FILE] = saved
    return out


def _saved_without(ws: Workspace, pieces: list[str]) -> str | None:
    """The saved recall queries without those that quote the text (`formats.scrub.quotes`): a
    question is dropped whole (replayed as `[forgotten]` it would ask nothing); None: unchanged."""
    path = ws.meta_dir / SAVED_FILE
    if path.is_symlink() or not path.is_file():
        return None
    text = path.read_bytes().decode("utf-8", "replace")
    kept = [line for line in text.splitlines(keepends=True)
            if line.lstrip().startswith("#") or not line.strip() or not quotes(line.strip(), pieces)]
    new = "".join(kept)
    return None if new == text else new


def _escaped(piece: str) -> str:
    return json.dumps(piece, ensure_ascii=False)[1:-1]


# --- what remains --------------------------------------------------------------------------------
def what_remains(ws: Workspace, day: str, fid: str, pieces: list[str], malformed: list[int]) -> list[str]:
    """One sentence per place a fragment's text (or a line claiming its id) is still found, and the way out."""
    out = []
    rel_stream = f"memory/streams/{day}.jsonl"
    if malformed:
        out.append(f"{rel_stream}: this id starts {counted(len(malformed), 'malformed line')} "
                   f"({', '.join(map(str, malformed))}), left as written (not a fragment; `dreamdeck doctor` lists "
                   "them; remove them by hand)")
    return out + text_remains(ws, pieces)


def text_remains(ws: Workspace, pieces: list[str]) -> list[str]:
    """One sentence per place a forgotten text (a fragment's, or a hard-forgotten topic's own
    words) is still found after the commit, and the way out; git history is never rewritten."""
    out: list[str] = []
    if not pieces:
        return out
    needles = sorted({pieces[0], _escaped(pieces[0])})
    for rel in _files_holding(ws, APPEND_ONLY, needles):
        out.append(f"memory/meta/{rel} (appended by other processes, not rewritten) still quotes the text; "
                   "edit it by hand")
    for rel, path in shard_area_files(ws):
        if any(n in path.read_bytes().decode("utf-8", "replace") for n in needles):
            out.append(f"memory/{rel} quotes the text in its prose; `dreamdeck edit` or `forget` that topic")
    has_git = repo_args(ws.root) is not None
    commits = _history_commits(ws.root, needles) if has_git else []
    notes = _notes_holding(ws.root, needles) if has_git else []
    if commits:
        out.append(f"git history still holds the text: {counted(len(commits), 'commit')} added or removed it "
                   f"({', '.join(commits)})")
    if notes:
        out.append(f"the GC notes ({NOTES_REF}) still hold the line, on {counted(len(notes), 'commit')} ({', '.join(notes)}) "
                   f"(`git notes --ref {NOTES_REF} remove SHA` drops a note; the notes' own history keeps it)")
    if commits or notes:
        out.append("dreamdeck does not rewrite git history. To remove it there too (every commit and note is "
                   "rewritten; every clone must fetch again): `git filter-repo --replace-text FILE` with FILE "
                   "holding one line `TEXT==>[forgotten]`, then `git reflog expire --expire=now --all && "
                   "git gc --prune=now`")
    return out


def _files_holding(ws: Workspace, names: tuple[str, ...], needles: list[str]) -> list[str]:
    found = []
    for name in names:
        path: Path = ws.meta_dir / name
        try:
            text = path.read_bytes().decode("utf-8", "replace")
        except OSError:
            continue
        if any(n in text for n in needles):
            found.append(name)
    return found


def _history_commits(root: Path, needles: list[str]) -> list[str]:
    shas: list[str] = []
    for needle in needles:
        out = run_git(root, "log", "--all", "--format=%h", "-S", needle, "--", "memory", check=False)
        shas += [s for s in out.split() if s not in shas]
    return shas


def _notes_holding(root: Path, needles: list[str]) -> list[str]:
    shas: list[str] = []
    for needle in needles:
        out = run_git(root, "grep", "-F", "-l", "-e", needle, NOTES_REF, check=False)
        for line in out.splitlines():
            sha = line.split(":", 1)[-1].replace("/", "")[:10]
            if sha and sha not in shas:
                shas.append(sha)
    return shas
