"""Screen 2, Reflections: what a dream proposes, hunk by hunk: approve, reject, edit, apply.

Left, the pending reflections; right, the selected one: summary, loss meter, contradictions,
questions, then its diff in a HunkView. Decisions (hunk id → approve | reject) live here, in
memory, until `enter` hands the approved hunks to core.reflections.approve (the one door).
Whether each hunk still applies, rebases onto a shard that changed since the dream, or conflicts
with it is core.ops.review's probe (a dry run through the door's own rebase); a conflicting hunk
cannot be approved.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.markup import escape as escape_markup
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from dreamdeck.core.errors import DreamdeckError
from dreamdeck.core.formats.counts import counted
from dreamdeck.core.formats.terminal_text import terminal_text
from dreamdeck.tui.screens.base import MemoryScreen
from dreamdeck.tui.widgets.hunk_view import FileEntry, HunkEntry, HunkView
from dreamdeck.tui.widgets.panes import NavList
from dreamdeck.tui.widgets.safe_static import SafeStatic

EMPTY = ("No pending reflections. Dreams whose changes need judgement appear here. "
         "To dream now: 7, then d.")
_HUNK_ID = re.compile(r"\bh-[0-9a-f]{10}\b")
_BLAME = re.compile(r"\b(h-[0-9a-f]{10}) \([^)]*\) (removes|would keep) (\S+)")

FLAG_STYLE = {"⌛": "bold yellow", "⚠": "bold red", "~": "yellow"}
HELD_STYLE = "bold magenta"  # a reflection holding fragments with nothing left to approve


def shown_in_markup(text: str) -> str:
    """Text from memory inside this screen's markup: what a terminal would obey shown as its
    escape, and its brackets shown as written."""
    return escape_markup(terminal_text(text))


@dataclass
class ReflectionItem:
    """A reflection as this screen shows it; built in the load thread from core objects."""

    id: str
    status: str  # pending | stale (expired: can only be rejected)
    created: str
    age_days: int
    dreamer: str
    trigger: str
    summary: str
    questions: list[str]
    contradictions: list[str]
    archive: list[str]
    fragments: int
    meter: dict
    files: list[FileEntry] = field(default_factory=list)
    mechanical: list[str] = field(default_factory=list)  # hunk ids `m` approves (core.ops.claim_review)
    folded_elsewhere: list[tuple[str, str]] = field(default_factory=list)  # folds with no held claim here
    # "DATE#ID" it holds for a decision with no hunk left to review (core.ops.review.held_reflections):
    # rejected, the rest of a partial approval, or a run that applied nothing
    held: list[str] = field(default_factory=list)
    decided: str = ""  # what earlier partial approvals of it decided ("" when none)
    held_gone: list[str] = field(default_factory=list)  # held "DATE#ID" no stream holds (TypeClaw's GC took them)

    @property
    def hunks(self) -> list[HunkEntry]:
        return [h for f in self.files for h in f.hunks]

    @property
    def stale_files(self) -> list[FileEntry]:
        return [f for f in self.files if f.stale]

    @property
    def conflicts(self) -> list[HunkEntry]:
        return [h for h in self.hunks if h.conflict]

    @property
    def age(self) -> str:
        return "today" if self.age_days == 0 else f"{self.age_days}d"

    @property
    def flag(self) -> str:
        if self.status == "stale":
            return "⌛"
        if self.conflicts or any(f.stale == "conflict" for f in self.files):
            return "⚠"
        if self.stale_files:
            return "~"
        return ""

    def prompt(self) -> Text:
        """Two lines in the list: id, age, dreamer, hunks (or what it holds) and flag; then the summary."""
        text = Text()
        text.append(f"{self.id:<5}", style="bold" if self.status == "pending" else "dim")
        if self.held:
            text.append(f"{self.age:>6} {self.status[:10]:<10}")
            text.append(f"{'holds ' + str(len(self.held)):>9}", style=HELD_STYLE)
            summary = " ".join(self.summary.split()) or "(no summary)"
            text.append("\n" + summary, style="dim")
            return text
        text.append(f"{self.age:>6} {self.dreamer[:10]:<10}{counted(len(self.hunks), 'hunk'):>9}")
        if self.flag:
            label = {"⌛": "expired", "⚠": "conflict", "~": "rebase"}[self.flag]
            text.append(f" {self.flag} {label}", style=FLAG_STYLE[self.flag])
        summary = " ".join(self.summary.split()) or "(no summary)"
        text.append("\n" + summary, style="dim" if self.status == "stale" else "")
        return text


# --- loading (thread) ---------------------------------------------------------------------------
def _age_days(created: str, today: str) -> int:
    """Whole days from the reflection's (UTC) creation date to the workspace's today."""
    try:
        return max(0, (date.fromisoformat(today) - date.fromisoformat(created[:10])).days)
    except ValueError:
        return 0


# ops.review's words for a file -> the HunkView's (FileEntry.stale)
_STALE = {"fresh": "", "rebases": "clean", "conflict": "conflict"}


def build_item(ws, r, today: str) -> ReflectionItem:
    from dreamdeck.core.ops.claim_review import claim_review
    from dreamdeck.core.ops.reflections import loss_meter
    from dreamdeck.core.ops.review import CONFLICT, REBASES, probe_reflection

    probe = {f.path: f for f in probe_reflection(ws, r).files}
    claims = claim_review(r)
    by_path = {c.path: c for c in claims.claims}
    files: list[FileEntry] = []
    for f, diff in r.hunks():
        p = probe[f.path]
        hunks = tuple(HunkEntry(h.id, f.path, h.header, h.lines, h.added, h.removed,
                                conflict=p.hunks[h.id] == CONFLICT, rebased=p.hunks[h.id] == REBASES)
                      for h in diff.hunks)
        claim = by_path[f.path]
        line = claim.line + "".join(f"\n  duplicate folded: {a} = {b}" for a, b in claim.folded)
        files.append(FileEntry(f.path, diff.status, f.pinned, _STALE[p.state], hunks, line, claim.mechanical))
    return ReflectionItem(
        id=r.id, status=r.status, created=r.created, age_days=_age_days(r.created, today),
        dreamer=r.dreamer, trigger=r.trigger, summary=r.summary, questions=list(r.questions),
        contradictions=list(r.contradictions), archive=list(r.archive), fragments=len(r.fragments),
        meter=loss_meter(r.files).to_json(), files=files, mechanical=claims.mechanical_hunks,
        folded_elsewhere=list(claims.folded_elsewhere), decided=_decided_so_far(r.decisions),
    )


def _decided_so_far(decisions: list[dict]) -> str:
    """What partial approvals took from this reflection: its summary and fragments are the dream's
    whole, so a person sees that part of it is already decided."""
    approved = sum(len(d.get("hunks", [])) for d in decisions if d.get("decision") == "partial")
    rejected = sum(len(d.get("rejected_hunks", [])) for d in decisions if d.get("decision") == "partial")
    parts = [f"{counted(approved, 'hunk')} approved"] if approved else []
    parts += [f"{rejected} rejected"] if rejected else []
    return " · ".join(parts)


def build_held_item(r, today: str) -> ReflectionItem:
    """A decided reflection that still holds fragments: nothing of it is left to review."""
    return ReflectionItem(
        id=r.id, status=r.status, created=r.created, age_days=_age_days(r.created, today),
        dreamer=r.dreamer, trigger=r.trigger, summary=r.summary, questions=[], contradictions=[], archive=[],
        fragments=len(r.fragments), meter={},
    )


def _collection_lines(ws, rid: str, hunks: list[str] | None, rejected: list[str]) -> tuple[int | None, list[str]]:
    """(how many fragments the approval removes from the streams now, the confirm's lines: each
    one with its reason, then those whose day's compaction waits, with why). The door's own
    judgment on the approval's ChangeSet (core.ops.review.preview_approval): reads only the shard
    files citing those days, so it is asked here, on the key press, like the conflict probe."""
    from dreamdeck.core.ops.review import preview_approval

    try:
        preview = preview_approval(ws, rid, hunks, rejected)
    except DreamdeckError as exc:
        return None, [f"What it collects from the streams cannot be said: {exc}"]
    lines = ([f"It collects {counted(len(preview.now), 'fragment')} from the streams:"] if preview.now
             else ["It collects nothing from the streams now."])
    lines += [f"  {c.describe()}" for c in preview.now]
    if preview.later:
        lines += [f"{counted(len(preview.later), 'fragment')} more go once their day's compaction may run:"]
        lines += [f"  {c.describe()}" for c in preview.later]
    return len(preview.now), lines


class ReflectionsScreen(MemoryScreen):
    MODE = "reflections"
    AUTO_FOCUS = "#hunks"
    PURPOSE = "What a dream proposes, hunk by hunk: approve, reject, edit — nothing changes until you press enter."
    HELP = (
        "Each pending reflection is a dream's proposal that waits for a person. On the right: its summary, "
        "the **loss meter** (citations dropped, beliefs rewritten, shards deleted, superseded), contradictions "
        "(⚠), questions (?), then the diff per shard, each under one line saying what it does to its claim "
        "(new claim, reinforced, superseded X by Y, rewritten, duplicates folded).\n\n"
        "The `┃` gutter marks the current hunk; `n`/`p` move between hunks, `j`/`k` scroll, `J`/`K` go to the "
        "next or previous reflection (in the list, `j`/`k` do). `space` toggles "
        "*approve* on it, `x` toggles *reject*, `a` approves every hunk, `m` approves the *mechanical* ones (✓: pure "
        "reinforcements and new claims with no contradiction), `u` clears your choices. Nothing is "
        "written until `enter`: a confirm lists what will be applied, then only the approved hunks go through "
        "the one door (rejected and undecided hunks are left out; undecided ones stay pending, and the fragments "
        "behind both are kept until released or forgotten). "
        "`e` opens the chosen result in `$EDITOR` before accepting. `R` rejects the whole reflection with a "
        "reason; `X` rejects it and releases its fragments to the next dream. `i` shows the **recall impact** "
        "of the hunks approved so far (or of every hunk not rejected): which answers the agent gets to its saved "
        "and most asked questions would change.\n\n"
        "**Stale bases.** When a shard changed on disk since the dream, its header says *stale: base changed* "
        "and each hunk is dry-run through a 3-way merge: *rebases cleanly*, or *⚠ conflict* — a conflicting "
        "hunk cannot be approved. A refused approval (say, a partial choice that would drop a citation) is "
        "shown with the fragment ids it would lose and the hunks responsible, and stays on screen.\n\n"
        "List flags: `~` a base changed (rebases), `⚠` a conflict, `⌛` expired (can only be rejected)."
    )
    # Footer words are short (the footer must hold them at 80 columns); the help shows the tooltips.
    BINDINGS = [
        Binding("space", "toggle", "Approve", tooltip="Approve the ┃ hunk and go on to the next undecided one (on a decided hunk: undecided)",
                id="reflections.toggle"),
        Binding("x", "reject_hunk", "Reject", tooltip="Reject the ┃ hunk and go on to the next undecided one (on a rejected hunk: undecided)",
                id="reflections.reject_hunk"),
        Binding("enter", "apply", "Apply", key_display="⏎",
                tooltip="Apply the approved hunks (a confirm lists them first)", id="reflections.apply"),
        Binding("a", "approve_all", "All", tooltip="Approve every hunk", id="reflections.approve_all"),
        Binding("m", "approve_mechanical", "Mechanical", tooltip="Approve the mechanical hunks (✓)",
                id="reflections.approve_mechanical"),
        Binding("n", "next_hunk", "Hunk", key_display="n/p", tooltip="Next hunk", id="reflections.next_hunk"),
        Binding("p", "prev_hunk", "Previous hunk", show=False, id="reflections.prev_hunk"),
        Binding("e", "edit", "Edit", tooltip="Edit the chosen result in $EDITOR, then accept it",
                id="reflections.edit"),
        Binding("R", "reject", "Reject all", tooltip="Reject the whole reflection (asks for a reason)",
                id="reflections.reject"),
        Binding("X", "reject_release", "Reject and release fragments", show=False,
                tooltip="Reject the whole reflection and give its fragments back to the next dream",
                id="reflections.reject_release"),
        Binding("J", "next_reflection(1)", "Next reflection", show=False, id="reflections.next_reflection"),
        Binding("K", "next_reflection(-1)", "Previous reflection", show=False,
                id="reflections.previous_reflection"),
        Binding("u", "clear_decisions", "Clear decisions", show=False, id="reflections.clear"),
        Binding("i", "impact", "Impact", tooltip="What the approved hunks change in recall", id="reflections.impact"),
    ]
    PANES = ("#reflection-list", "#hunks")
    DEFAULT_CSS = """
    ReflectionsScreen #refl-body { height: 1fr; }
    ReflectionsScreen #reflection-list { width: 30%; min-width: 30; max-width: 46; height: 1fr; }
    ReflectionsScreen #refl-pane { width: 1fr; border-left: solid $panel-lighten-1; }
    ReflectionsScreen #refl-pane:focus-within { border-left: solid $accent; }
    ReflectionsScreen.-narrow #refl-body { layout: vertical; }
    ReflectionsScreen.-narrow #reflection-list { width: 1fr; max-width: 100%; height: auto; max-height: 5; }
    ReflectionsScreen.-narrow #refl-pane, ReflectionsScreen.-narrow #refl-pane:focus-within { border-left: none; }
    ReflectionsScreen.-narrow #refl-pane { border-top: solid $panel-lighten-1; }
    ReflectionsScreen.-narrow #refl-pane:focus-within { border-top: solid $accent; }
    ReflectionsScreen #refl-info { height: auto; max-height: 40%; padding: 0 1; overflow-y: auto; }
    ReflectionsScreen.-short #refl-info { max-height: 30%; }
    ReflectionsScreen #refl-decisions { height: auto; padding: 0 1; background: $boost; }
    ReflectionsScreen #refl-refusal { height: auto; max-height: 4; padding: 0 1; color: $text-error;
        background: $error 10%; }
    ReflectionsScreen #refl-refusal.-none { display: none; }
    ReflectionsScreen #hunks { min-height: 6; }
    ReflectionsScreen #refl-empty { height: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._items: dict[str, ReflectionItem] = {}
        self._selected: str | None = None
        self._decisions: dict[str, dict[str, str]] = {}  # reflection id → {hunk id: approve|reject}
        self._refusal: tuple[str, str] | None = None  # (reflection id, message) of the last refusal
        self._problems_seen: tuple[str, ...] = ()

    def compose_body(self) -> ComposeResult:
        with Horizontal(id="refl-body"):
            yield NavList(id="reflection-list")
            with Vertical(id="refl-pane"):
                yield SafeStatic("", id="refl-info")
                yield SafeStatic("", id="refl-decisions")
                yield SafeStatic("", id="refl-refusal", classes="-none", markup=False)
                yield HunkView(id="hunks", empty_message="Select a reflection on the left.")
        yield SafeStatic(EMPTY, id="refl-empty", classes="empty", markup=False)

    # --- data ----------------------------------------------------------------------------------
    def load(self) -> Any:
        from dreamdeck.core.ops.protected import missing_from_streams
        from dreamdeck.core.ops.review import held_reflections
        from dreamdeck.core.store.reflections import list_reflections

        ws = self.ws
        today = ws.today()
        reflections, problems = list_reflections(ws, include_decided=True)
        held = {h.rid: h for h in held_reflections(ws)}
        items = []
        for r in reflections:
            if r.status not in ("pending", "stale") and r.id not in held:
                continue
            try:
                item = build_item(ws, r, today) if r.status in ("pending", "stale") else build_held_item(r, today)
            except Exception as exc:  # a broken reflection must not hide the others
                problems.append(f"{r.id}: cannot show it ({exc})")
                continue
            item.held = held[r.id].held if r.id in held else []
            if item.held:
                item.held_gone = [f"{d}#{i}" for d, i in missing_from_streams(ws, [tuple(k.split("#", 1)) for k in item.held])]
            items.append(item)
        return items, problems

    def show(self, data: tuple[list[ReflectionItem], list[str]]) -> None:
        items, problems = data
        self._items = {i.id: i for i in items}
        for rid in list(self._decisions):  # forget choices for reflections that are gone
            if rid not in self._items:
                del self._decisions[rid]
            else:
                ids = {h.id for h in self._items[rid].hunks}
                self._decisions[rid] = {k: v for k, v in self._decisions[rid].items() if k in ids}
        if self._refusal and self._refusal[0] not in self._items:
            self._refusal = None
        listing = self.query_one("#reflection-list", OptionList)
        keep = self._selected
        with self.app.batch_update():
            listing.clear_options()
            listing.add_options([Option(i.prompt(), id=i.id) for i in items])
            if items:
                ids = [i.id for i in items]
                listing.highlighted = ids.index(keep) if keep in ids else 0
        empty = not items
        self.query_one("#refl-body").display = not empty
        self.query_one("#refl-empty").display = empty
        if problems and tuple(problems) != self._problems_seen:
            self.notify("\n".join(problems), title="Unreadable reflections", severity="warning", timeout=10)
        self._problems_seen = tuple(problems)
        self._select(str(listing.highlighted_option.id) if listing.highlighted_option else None)
        if not empty and self.focused is None:
            self.query_one("#hunks", HunkView).focus()

    @on(OptionList.OptionHighlighted, "#reflection-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id != self._selected:
            self._select(str(event.option.id))

    @on(OptionList.OptionSelected, "#reflection-list")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if event.option.id != self._selected:
            self._select(str(event.option.id))
        self.query_one("#hunks", HunkView).focus()

    def _select(self, rid: str | None) -> None:
        item = self._items.get(rid) if rid else None
        self._selected = item.id if item else None
        view = self.query_one("#hunks", HunkView)
        if item is None:
            self.query_one("#refl-info", Static).update("")
            view.set_files([])
        else:
            self.query_one("#refl-info", Static).update(self._info(item))
            view.set_files(item.files, self.decisions, self._flagged())
        self._show_decisions()
        self._show_refusal()
        self.refresh_bindings()

    # --- what the right pane says ------------------------------------------------------------------
    def _info(self, r: ReflectionItem) -> str:
        m = r.meter
        created = r.created[:16].replace("T", " ") + " UTC" if len(r.created) >= 16 else r.created
        n_hunks = len(r.hunks)
        lines = [
            f"[b]{r.id}[/b] · {r.status} · {shown_in_markup(r.dreamer or '?')}, {shown_in_markup(r.trigger or '?')} · "
            f"{created} ({r.age}) · {counted(r.fragments, 'fragment')} · "
            f"{counted(len(r.files), 'file')}, {counted(n_hunks, 'hunk')}",
            f"[b]{shown_in_markup(r.summary)}[/b]" if r.summary.strip() else "[dim](the dream left no summary)[/dim]",
        ]
        if r.decided:
            lines.append(f"[dim]decided so far: {r.decided} · {counted(n_hunks, 'hunk')} left[/dim]")
        dropped = m.get("citations_dropped", [])
        # Only what is lost is named (a zero is noise at 80 columns); nothing lost says so.
        losses = [(len(dropped), "citation", "dropped", "$text-error"),
                  (len(m.get("beliefs_removed", [])), "belief", "rewritten", "$text-warning"),
                  (len(m.get("shards_deleted", [])), "shard", "deleted", "$text-warning"),
                  (len(m.get("superseded_added", [])), "superseded line", "added", "")]
        named = [f"[{style}]{counted(n, word)} {verb}[/]" if style else f"{counted(n, word)} {verb}"
                 for n, word, verb, style in losses if n]
        if r.held:
            lines.append(self._held_info(r))
            if not r.files:
                return "\n".join(lines)
        loss = "Loss meter: " + (" · ".join(named) if named else "nothing lost")
        if dropped:
            shown = ", ".join(dropped[:3]) + (f" (+{len(dropped) - 3} more)" if len(dropped) > 3 else "")
            loss += f"  [$text-error]dropped: {shown_in_markup(shown)}[/]"
        lines.append(loss)
        if r.status == "stale":
            lines.append(f"[$text-warning]⌛ expired after {r.age}: it can only be rejected (R), or rejected "
                         f"with its fragments released to the next dream (X).[/]")
        stale = r.stale_files
        if stale:
            conflicts = r.conflicts
            text = (f"[$text-warning]~ {counted(len(stale), 'file')} changed since the dream: "
                    f"{', '.join(shown_in_markup(f.path) for f in stale)} — rebased with a 3-way merge on apply")
            if conflicts:
                text += f"; {counted(len(conflicts), 'hunk')} in conflict (cannot be approved)"
            lines.append(text + "[/]")
        claims = sum(1 for f in r.files if f.claim)
        if claims:
            mech = f"{len(r.mechanical)} mechanical (✓, m approves them)" if r.mechanical else "none mechanical"
            lines.append(f"{counted(claims, 'claim')} · {counted(len(r.contradictions), 'flagged contradiction')} · {mech}")
        lines += [f"[dim]duplicate folded: {shown_in_markup(a)} = {shown_in_markup(b)}[/dim]" for a, b in r.folded_elsewhere]
        lines += [f"[$text-warning]⚠ {shown_in_markup(c)}[/]" for c in r.contradictions]
        lines += [f"[$accent]? {shown_in_markup(q)}[/]" for q in r.questions]
        if r.archive:
            lines.append("📦 proposes archiving: " + ", ".join(shown_in_markup(a) for a in r.archive))
        return "\n".join(lines)

    @staticmethod
    def _held_info(r: ReflectionItem) -> str:
        shown = ", ".join(f"streams/{k}" for k in r.held[:3]) + (f" (+{len(r.held) - 3} more)" if len(r.held) > 3 else "")
        kept = "never collected by dreamdeck" if r.held_gone else "kept in the streams, never collected"
        gone = ""
        if r.held_gone:  # TypeClaw's GC reads no reflection: say what it took and how to get it back
            gone = (f"\n[$text-warning]⚠ {len(r.held_gone)} of them left the streams outside dreamdeck (TypeClaw's GC?): "
                    f"{shown_in_markup(', '.join(f'streams/{k}' for k in r.held_gone[:3]))}"
                    f"{' …' if len(r.held_gone) > 3 else ''}; [b]dreamdeck doctor --fix[/b] puts them back from git history[/]")
        return (f"[{HELD_STYLE}]Holds {counted(len(r.held), 'fragment')} for your decision[/] ({kept}, "
                f"not dreamed again): {shown_in_markup(shown)}{gone}\n"
                f"X releases them to the next dream; forget one with "
                f"[b]dreamdeck forget {shown_in_markup(r.held[0])} --reason …[/b]")

    def _show_decisions(self) -> None:
        bar = self.query_one("#refl-decisions", Static)
        item = self._current()
        if item is None:
            bar.update("")
            return
        hunks = item.hunks
        d = self.decisions
        ok = sum(1 for h in hunks if d.get(h.id) == "approve")
        no = sum(1 for h in hunks if d.get(h.id) == "reject")
        rest = len(hunks) - ok - no
        view = self.query_one("#hunks", HunkView)
        where = f"hunk {view.cursor + 1}/{len(hunks)}" if hunks else "no hunks"
        hint = (f"enter applies {counted(ok, 'hunk')}" if ok else
                "all rejected: enter offers to reject it" if hunks and no == len(hunks) else
                "space approves the ┃ hunk")
        if item.status == "stale":
            hint = "expired: R rejects, X rejects and releases"
        bar.update(f"{where} · [$text-success]✓ {ok}[/] [$text-error]✗ {no}[/] · {rest} undecided — {hint}")

    def _show_refusal(self) -> None:
        box = self.query_one("#refl-refusal", Static)
        if self._refusal and self._refusal[0] == self._selected:
            box.update(f"⊘ last refusal: {self._refusal[1]}")
            box.remove_class("-none")
        else:
            box.update("")
            box.add_class("-none")

    def _flagged(self) -> dict[str, str]:
        """hunk id → what the last refusal says about it (core names the hunks to blame)."""
        if not (self._refusal and self._refusal[0] == self._selected):
            return {}
        message = self._refusal[1]
        notes = {hid: "named in the last refusal" for hid in _HUNK_ID.findall(message)}
        for hid, verb, cited in _BLAME.findall(message):
            if verb == "removes":
                notes[hid] = f"refused: drops {cited.rstrip(';,.').removeprefix('streams/')}"
            else:
                notes[hid] = "keeps the cited fragment: approve it too"
        return notes

    # --- state ----------------------------------------------------------------------------------------
    def _current(self) -> ReflectionItem | None:
        return self._items.get(self._selected) if self._selected else None

    @property
    def decisions(self) -> dict[str, str]:
        """hunk id → "approve" | "reject" for the selected reflection (undecided hunks are absent)."""
        if not self._selected:
            return {}
        return self._decisions.setdefault(self._selected, {})

    def _hunk(self) -> HunkEntry | None:
        return self.query_one("#hunks", HunkView).current

    def _decisions_changed(self) -> None:
        self.query_one("#hunks", HunkView).set_decisions(self.decisions)
        self._show_decisions()

    @on(HunkView.CursorMoved, "#hunks")
    def _cursor_moved(self, event: HunkView.CursorMoved) -> None:
        self._show_decisions()

    def check_action(self, action: str, parameters) -> bool | None:
        if not self.is_mounted:
            return True
        item = self._current()
        if action in ("next_hunk", "prev_hunk"):
            return item is not None and bool(item.hunks)
        if action == "next_reflection":
            return len(self._items) > 1
        if action in ("toggle", "reject_hunk", "approve_all", "approve_mechanical", "clear_decisions"):
            return item is not None and item.status == "pending" and bool(item.hunks)
        if action in ("apply", "edit"):
            return item is not None and item.status == "pending"
        if action == "reject":
            return item is not None and item.status in ("pending", "stale")
        if action == "reject_release":
            return item is not None and (item.status in ("pending", "stale") or bool(item.held))
        return True

    def unapplied(self) -> list[tuple[str, int, int]]:
        """(reflection id, approved, rejected) for every pending reflection with choices not applied."""
        out = []
        for rid, decisions in self._decisions.items():
            if rid in self._items and decisions:
                ok = sum(1 for v in decisions.values() if v == "approve")
                out.append((rid, ok, len(decisions) - ok))
        return out

    def action_next_reflection(self, step: int = 1) -> None:
        listing = self.query_one("#reflection-list", OptionList)
        if listing.option_count:
            current = listing.highlighted if listing.highlighted is not None else 0
            listing.highlighted = max(0, min(listing.option_count - 1, current + step))

    # --- hunk decisions ---------------------------------------------------------------------------------
    def action_next_hunk(self) -> None:
        self.query_one("#hunks", HunkView).move(1)

    def action_prev_hunk(self) -> None:
        self.query_one("#hunks", HunkView).move(-1)

    def _refuse_conflict(self, h: HunkEntry) -> None:
        self.notify(f"{h.id} conflicts: {h.path} changed since the dream and this hunk does not merge onto it. "
                    "Reject it (x), or reject the reflection (R) and dream again.",
                    title="Cannot approve a conflicting hunk", severity="warning", timeout=8)

    def action_toggle(self) -> None:
        h = self._hunk()
        item = self._current()
        if h is None or item is None or item.status != "pending":
            return
        d = self.decisions
        if d.get(h.id) == "approve":
            del d[h.id]
        elif h.conflict:
            self._refuse_conflict(h)
            return
        else:
            d[h.id] = "approve"
            self._advance_to_undecided()
        self._decisions_changed()

    def action_reject_hunk(self) -> None:
        h = self._hunk()
        if h is None:
            return
        d = self.decisions
        if d.get(h.id) == "reject":
            del d[h.id]
        else:
            d[h.id] = "reject"
            self._advance_to_undecided()
        self._decisions_changed()

    def _advance_to_undecided(self) -> None:
        """After a decision the ┃ goes on to the next undecided hunk below (as `git add -p` shows
        the next one): a reflection of sixty hunks is read top to bottom with space and x alone.
        Undoing a decision, or deciding the last undecided one, leaves it where it is."""
        view = self.query_one("#hunks", HunkView)
        hunks = view.hunks
        later = [i for i in range(view.cursor + 1, len(hunks)) if hunks[i].id not in self.decisions]
        if later:
            view.go_to(later[0])

    def action_approve_all(self) -> None:
        item = self._current()
        if item is None:
            return
        d = self.decisions
        skipped = 0
        for h in item.hunks:
            if h.conflict:
                skipped += 1
                continue
            d[h.id] = "approve"
        self._decisions_changed()
        if skipped:
            self.notify(f"{counted(skipped, 'conflicting hunk')} left out: they cannot be approved",
                        title="Approve all", severity="warning")

    def action_approve_mechanical(self) -> None:
        """Approve the mechanical hunks (core.ops.claim_review's definition), conflicts left out."""
        item = self._current()
        if item is None:
            return
        chosen = [h for h in item.hunks if h.id in set(item.mechanical) and not h.conflict]
        if not chosen:
            self.notify("No mechanical hunk here: every change needs a look (or conflicts).",
                        title="Approve mechanical", severity="warning")
            return
        d = self.decisions
        for h in chosen:
            d[h.id] = "approve"
        self._decisions_changed()
        self.notify(f"{counted(len(chosen), 'mechanical hunk')} approved: enter applies them",
                    title="Approve mechanical")

    def action_clear_decisions(self) -> None:
        self.decisions.clear()
        self._decisions_changed()

    # --- applying -----------------------------------------------------------------------------------------
    def _decide(self, label: str, rid: str, fn, done) -> None:
        """act() with bookkeeping: a refusal is kept on screen; a success resets the choices."""

        def run():
            try:
                result = fn()
            except DreamdeckError as exc:  # a refusal; anything else is a bug, not kept as one
                self.app.call_from_thread(self._record_refusal, rid, str(exc) or type(exc).__name__)
                raise
            self.app.call_from_thread(self._record_success, rid)
            return result

        self.act(label, run, done)

    def _record_refusal(self, rid: str, message: str) -> None:
        self._refusal = (rid, message)
        if rid == self._selected:
            self._show_refusal()
            self.query_one("#hunks", HunkView).set_decisions(self.decisions, self._flagged())

    def _record_success(self, rid: str) -> None:
        self._decisions.pop(rid, None)
        if self._refusal and self._refusal[0] == rid:
            self._refusal = None

    @staticmethod
    def _applied(rid: str):
        def done(result) -> str:
            msg = f"{rid}: {counted(len(result.written), 'file')} written, {len(result.deleted)} deleted"
            if result.rebased:
                msg += f", rebased {', '.join(result.rebased)}"
            if result.sha:
                msg += f" → commit {result.sha[:8]}"
            return msg
        return done

    def _plan(self, item: ReflectionItem) -> tuple[list[str] | None, list[str]]:
        """(hunks argument for approve — None for all —, one line per file for the confirm)."""
        d = self.decisions
        hunks = item.hunks
        approved = [h.id for h in hunks if d.get(h.id) == "approve"]
        every = len(approved) == len(hunks)
        lines = []
        for f in item.files:
            picked = sum(1 for h in f.hunks if d.get(h.id) == "approve")
            if not f.hunks:
                what = "applied (no line changes)" if every else "not applied"
            elif picked:
                what = f"{picked} of {counted(len(f.hunks), 'hunk')}"
            else:
                what = "not applied"
            note = {"clean": " · base changed: rebased", "conflict": " · base changed"}.get(f.stale, "")
            mark = "✓" if picked or (every and not f.hunks) else "·"
            lines.append(f"{mark} {f.path} — {f.status}: {what}{note}")
        return (None if every else approved), lines

    def action_apply(self) -> None:
        item = self._current()
        if item is None or item.status != "pending":
            return
        d = self.decisions
        hunks = item.hunks
        approved = [h for h in hunks if d.get(h.id) == "approve"]
        if not approved and hunks:
            if all(d.get(h.id) == "reject" for h in hunks):
                self._ask_reject(item.id, release=False,
                                 title=f"Every hunk of {item.id} is rejected — reject the reflection instead?")
            else:
                self.notify("Nothing chosen yet: space approves the hunk under ┃, a approves every hunk.",
                            title="Apply", severity="warning")
            return
        hunks_arg, lines = self._plan(item)
        rejected = sum(1 for h in hunks if d.get(h.id) == "reject")
        undecided = len(hunks) - len(approved) - rejected
        kind = "approval" if hunks_arg is None else "partial approval"
        body = [f"{len(approved)} of {counted(len(hunks), 'hunk')} will be applied ({kind}):", "", *lines]
        if rejected or undecided:
            body += ["", f"Left out: {rejected} rejected, {undecided} undecided. "
                     + (f"The undecided stay pending in {item.id}. " if undecided else "")
                     + "The fragments behind what is left out are kept (never collected) until you "
                     "release them (X) or forget them."]
        if item.stale_files:
            body += ["", "Files that changed since the dream are rebased with a 3-way merge."]
        body += ["", "One commit, through the one door; a change that would lose a citation is refused."]
        rid = item.id
        turned_down = [h.id for h in hunks if d.get(h.id) == "reject"]
        collects, said = _collection_lines(self.ws, rid, hunks_arg, turned_down)
        body += ["", *said]
        title = (f"Apply {rid}?" if not hunks else
                 f"Apply all {counted(len(hunks), 'hunk')} of {rid}?" if hunks_arg is None else
                 f"Apply {len(approved)} of {counted(len(hunks), 'hunk')} of {rid}?")
        if collects is not None:
            title += f" It collects {counted(collects, 'fragment')} from the streams."

        def go(ok: bool | None) -> None:
            if ok:
                from dreamdeck.core.ops.reflections import approve

                self._decide("Apply", rid, lambda: approve(self.ws, rid, hunks=hunks_arg, rejected=turned_down,
                                                           actor=self.actor),
                             self._applied(rid))

        from dreamdeck.tui.modals import ConfirmModal

        self.app.push_screen(ConfirmModal(title, "\n".join(body), "Apply"), go)

    # --- rejecting ---------------------------------------------------------------------------------------
    def _ask_reject(self, rid: str, *, release: bool, title: str | None = None) -> None:
        from dreamdeck.tui.modals import ReasonModal

        if release:
            detail = ("Nothing of it is applied, and the fragments it was shown go back to the undreamed tail: "
                      "the next dream sees them again.")
        else:
            detail = ("Nothing of it is applied. Its fragments stay dreamed (X, or the palette's "
                      "“Reject and release fragments”, returns them to the next dream).")

        def go(reason: str | None) -> None:
            if reason:
                from dreamdeck.core.ops.reflections import reject

                self._decide("Reject", rid,
                             lambda: reject(self.ws, rid, reason=reason, release=release, actor=self.actor),
                             lambda r: f"rejected {rid}" + (" and released its fragments" if release else ""))

        self.app.push_screen(ReasonModal(
            title or (f"Reject {rid} and release its fragments?" if release else f"Reject {rid}?"),
            placeholder="reason (required)", detail=detail), go)

    def action_reject(self) -> None:
        if self._selected:
            self._ask_reject(self._selected, release=False)

    def action_reject_release(self) -> None:
        item = self._current()
        if item is None:
            return
        if item.status in ("pending", "stale"):
            self._ask_reject(item.id, release=True)
        else:  # decided already: only what it holds is let go (core: reject --release on a decided one)
            self._ask_reject(item.id, release=True,
                             title=f"Release the {counted(len(item.held), 'fragment')} {item.id} holds to the next dream?")

    def action_impact(self) -> None:
        """Which recall answers the chosen hunks change (`tui.screens.recall_impact`)."""
        from dreamdeck.tui.screens.recall_impact import ImpactModal, previewed_hunks

        item = self._current()
        if item is not None:
            self.app.push_screen(ImpactModal(self.ws, item.id, previewed_hunks(item.hunks, self.decisions)))

    # --- edit before accepting ----------------------------------------------------------------------------
    def action_edit(self) -> None:
        item = self._current()
        if item is None or item.status != "pending":
            return
        d = self.decisions
        hunks = item.hunks
        chosen = [h.id for h in hunks if d.get(h.id) == "approve"]
        if not chosen:  # nothing approved yet: start from everything not rejected
            chosen = [h.id for h in hunks if d.get(h.id) != "reject" and not h.conflict]
        if hunks and not chosen:
            self.notify("Every hunk is rejected or conflicting: there is nothing to edit.", title="Edit",
                        severity="warning")
            return
        self._edit_texts_worker(item.id, chosen, len(chosen) == len(hunks))

    @work(thread=True, exclusive=True, group="edit", exit_on_error=False)
    def _edit_texts_worker(self, rid: str, chosen: list[str], every: bool) -> None:
        from dreamdeck.core.errors import DreamdeckError
        from dreamdeck.core.ops.review import chosen_texts
        from dreamdeck.core.store.reflections import load_reflection

        try:
            texts = chosen_texts(load_reflection(self.ws, rid), None if every else chosen)
        except DreamdeckError as exc:  # decided or removed meanwhile
            self.app.call_from_thread(self.notify, str(exc), title="Edit", severity="error")
            return
        self.app.call_from_thread(self._edit_in_editor, rid, texts, None if every else chosen)

    def _edit_in_editor(self, rid: str, texts: dict[str, str | None], hunks_arg: list[str] | None) -> None:
        from dreamdeck.tui.editor import edit_texts

        result = edit_texts(texts, run=self.app.hand_over_terminal)  # type: ignore[attr-defined]
        if result is None:
            return
        if result.status != 0:
            self.notify(f"the editor exited with status {result.status}: nothing was applied", title="Edit",
                        severity="warning")
            return
        edited = {rel: text for rel, text in result.emptied_as_deleted().items() if text != texts[rel]}
        lines = [f"  {rel} — " + ("edited" if rel in edited and edited[rel] is not None else
                                  "emptied: the file is deleted" if rel in edited else "as chosen")
                 for rel in texts]
        title = f"Accept {rid} with {counted(len(edited), 'edited file')}?" if edited else \
            f"No edits — accept {rid} as chosen?"

        def go(ok: bool | None) -> None:
            if ok:
                from dreamdeck.core.ops.reflections import approve

                self._decide("Edit & accept", rid,
                             lambda: approve(self.ws, rid, hunks=hunks_arg, edited=edited or None, actor=self.actor),
                             self._applied(rid))

        from dreamdeck.tui.modals import ConfirmModal

        self.app.push_screen(ConfirmModal(title, "\n".join(
            [*lines, "", "Edited texts are applied as written (frontmatter counts are recomputed); "
             "a change that would lose a citation is refused."]), "Accept"), go)
