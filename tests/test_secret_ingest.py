"""Invariant 10, inward: a secret is refused on every path into memory, in every field.

Paths: `remember` / `append_fragment` (topic, body, who, source, entry, id, references; `where`
entries are dropped as TypeClaw drops unsafe origin names), sub-agent proposals (filing and
approval), the dreamer's scratch, and the door every shard write passes.
"""
from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from dreamdeck.core.door.apply import apply_changeset
from dreamdeck.core.door.changeset import ChangeSet, Commit, FileEdit, Writes
from dreamdeck.core.dreaming.protocol import DreamScratch
from dreamdeck.core.dreaming.run import run_dream
from dreamdeck.core.errors import BadInput, Refused
from dreamdeck.core.git.runner import head
from dreamdeck.core.ops.forget import forget_topic
from dreamdeck.core.ops.proposals import ProposalRefused, approve_proposal, propose
from dreamdeck.core.ops.vault import pin_topic, unpin
from dreamdeck.core.store.proposals_file import append_proposal, pending_path
from dreamdeck.core.store.streams import AppendRefused, append_fragment, write_path_for
from dreamdeck.core.workspace import Workspace
from tests.support.dreamers import Scripted, draft
from tests.support.memory import commit_all, fragment_line, shard_text, uuid_at, write_shard, write_stream
from tests.test_secrets import SECRET_FORMS

REPO = Path(__file__).resolve().parent.parent
D1, D = "2026-05-20", "2026-05-22"
NOW = datetime(2026, 5, 22, 9, 30, tzinfo=UTC)
GH = "gh" + "p_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
NPM = "npm" + "_" + "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7j"
JWT = "ey" + "JhbGciOiJIUzI1NiJ9" + ".ey" + "JzdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"


def cite(day: str, n: int) -> str:
    return f"streams/{day}#{uuid_at(day, n)}"


def files_under(root: Path) -> dict[str, bytes]:
    memory = root / "memory"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in memory.rglob("*") if p.is_file()} if memory.is_dir() else {}


def leaked(root: Path, secret: str) -> list[str]:
    return [rel for rel, data in files_under(root).items() if secret.encode() in data]


@pytest.fixture
def bare(tmp_path):
    """Appends need no git."""
    root = tmp_path / "agent"
    root.mkdir()
    return Workspace.open(root, today=D)


# --- remember / append_fragment ------------------------------------------------------------------
@pytest.mark.parametrize("name, text, secret", SECRET_FORMS, ids=[f[0] for f in SECRET_FORMS])
def test_remember_refuses_every_secret_form_in_the_body(bare, name, text, secret):
    with pytest.raises(AppendRefused, match=r"the body contains a secret \(") as err:
        append_fragment(bare, "notes", f"while debugging: {text}")
    assert secret not in str(err.value)
    assert files_under(bare.root) == {}


@pytest.mark.parametrize("field", ["topic", "who", "source", "entry"])
def test_a_secret_in_any_field_of_a_fragment_is_refused(bare, field):
    kwargs = {field: f"x {JWT}"}
    topic = kwargs.pop("topic", "notes")
    with pytest.raises(AppendRefused, match=rf"the {field} contains a secret \(jwt\)"):
        append_fragment(bare, topic, "a harmless body", **kwargs)
    assert files_under(bare.root) == {}


def test_a_secret_shaped_event_id_or_reference_is_refused(bare):
    with pytest.raises(AppendRefused, match=r"the id contains a secret"):
        append_fragment(bare, "notes", "body", event_id=NPM)
    slug = "sk-" + "proj-" + "ab12cd34ef56gh78ij90kl12"
    bare.references_dir.mkdir(parents=True)
    (bare.references_dir / f"{slug}.md").write_text("# ref\n")
    before = files_under(bare.root)
    with pytest.raises(AppendRefused, match=r"the references contains a secret \(openai key\)"):
        append_fragment(bare, "notes", "body", references=["pnpm-docs", slug])
    assert files_under(bare.root) == before


def test_a_where_entry_carrying_a_secret_is_dropped_and_the_fragment_kept(bare):
    where = {"adapter": "slack", "workspace": "T01", "chat": f"C-{GH}", "chatName": f"deploys {JWT}",
             "parentChatName": "incidents"}
    frag = append_fragment(bare, "notes", "the deploy channel moved", where=where)
    line = write_path_for(bare, D).read_text()
    assert GH not in line and JWT not in line
    assert json.loads(line)["where"] == {"adapter": "slack", "workspace": "T01", "parentChatName": "incidents"}
    assert frag.body == "the deploy channel moved"


def test_the_cli_remember_refuses_a_secret_in_source_and_who_with_one_line(bare):
    for flag in ("--source", "--who"):
        proc = subprocess.run(
            [sys.executable, "-m", "dreamdeck", "-w", str(bare.root), "--today", D, "remember", "harmless note",
             "--topic", "notes", flag, f"ci {NPM}"],
            capture_output=True, text=True, cwd=REPO,
        )
        assert proc.returncode == 2, proc.stderr
        assert "npm token" in proc.stderr and NPM not in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
    assert files_under(bare.root) == {}


# --- proposals -------------------------------------------------------------------------------------
def test_a_proposal_from_a_secret_shaped_agent_name_is_refused(tmp_path):
    with pytest.raises(BadInput, match=r"github token") as err:
        append_proposal(tmp_path, GH, "semantic", "User prefers pnpm", now=NOW)
    assert GH not in str(err.value)
    assert not pending_path(tmp_path).exists()


def hand_edit_pending(root: Path, old: str, new: str) -> None:
    path = pending_path(root)
    path.write_text(path.read_text().replace(old, new))


@pytest.mark.parametrize("where", ["content", "from", "entity"])
def test_approving_a_hand_edited_proposal_that_carries_a_secret_is_refused_and_nothing_is_written(ws, agent_dir, where):
    propose(ws, "researcher", "semantic", "User prefers academic sources", entities=["preference--sources"], now=NOW)
    sha = head(agent_dir)
    old, new = {
        "content": ("User prefers academic sources", f"User prefers academic sources; db password={'Hunter2024'}"),
        "from": ("- **From**: researcher", f"- **From**: {GH}"),
        "entity": ("preference--sources", "glpat-" + "aB3dE5gH7jK9mN1pQ2sT4v"),
    }[where]
    hand_edit_pending(agent_dir, old, new)
    before = files_under(agent_dir)
    with pytest.raises(ProposalRefused, match="contains a secret") as err:
        approve_proposal(ws, "p-1", now=NOW)
    assert new.split()[-1] not in str(err.value)
    assert files_under(agent_dir) == before and head(agent_dir) == sha


# --- the door --------------------------------------------------------------------------------------
def change(*edits: FileEdit, action: str = "edit", allow_vault: bool = False) -> ChangeSet:
    return ChangeSet(Commit(action, "human:cli", "approved", "test", "a human edit"), Writes(list(edits), allow_vault=allow_vault))


@pytest.fixture
def seeded(ws, agent_dir):
    write_shard(agent_dir, "a", shard_text("Belief a", [cite(D1, 1)]))
    return commit_all(agent_dir)


@pytest.mark.parametrize("name, text, secret", SECRET_FORMS[20:40], ids=[f[0] for f in SECRET_FORMS[20:40]])
def test_the_door_refuses_a_shard_that_would_bring_a_secret_into_memory(ws, agent_dir, seeded, name, text, secret):
    before = files_under(agent_dir)
    new = shard_text("Belief b", [cite(D1, 2)]).replace("fragments:", f"{text}\n\nfragments:")
    with pytest.raises(Refused, match=r"memory/topics/b\.md would hold a secret") as err:
        apply_changeset(ws, change(FileEdit("topics/b.md", None, new)))
    assert secret not in str(err.value)
    assert files_under(agent_dir) == before and head(agent_dir) == seeded


def test_the_door_refuses_a_secret_added_to_an_existing_shard_under_any_area(ws, agent_dir, seeded):
    current = (agent_dir / "memory/topics/a.md").read_text()
    edited = current.replace("Belief a.", f"Belief a. Deploy with {NPM}.")
    with pytest.raises(Refused, match=r"memory/topics/a\.md would hold a secret \(npm token\)"):
        apply_changeset(ws, change(FileEdit("topics/a.md", current, edited)))
    with pytest.raises(Refused, match=r"memory/vault/a\.md would hold a secret"):
        apply_changeset(ws, change(FileEdit("vault/a.md", None, edited), action="pin", allow_vault=True))
    assert leaked(agent_dir, NPM) == [] and head(agent_dir) == seeded


def test_a_secret_an_outside_writer_left_in_a_shard_does_not_block_pinning_or_archiving_it(ws, agent_dir, seeded):
    """Not new: the door keeps what the replaced file held, so a person can still curate it."""
    write_shard(agent_dir, "creds", shard_text("Belief creds", [cite(D1, 3)]).replace("fragments:", f"{GH}\n\nfragments:"))
    commit_all(agent_dir, "outside writer")
    pin_topic(ws, "creds")
    assert GH in (agent_dir / "memory/vault/creds.md").read_text()
    unpin(ws, "creds")
    forget_topic(ws, "creds", reason="holds a token", actor="human:cli")
    assert GH in (agent_dir / "memory/archive/creds.md").read_text()


# --- the dreamer's writes ----------------------------------------------------------------------------
def test_a_dreamer_cannot_write_a_secret_into_its_scratch():
    scratch = DreamScratch({"a": "Belief a.\n\nfragments:\n- " + cite(D1, 1) + "\n"})
    result = json.loads(scratch.write_shard("b", f"Deploy key {GH}.\n\nfragments:\n- {cite(D1, 2)}\n"))
    assert result["ok"] is False and result["reason"] == "secret" and GH not in result["message"]
    assert "b" not in scratch.files
    # Rewriting a shard that already held a secret (the dreamer saw it redacted) is allowed.
    held = DreamScratch({"a": f"Belief a {GH}.\n\nfragments:\n- {cite(D1, 1)}\n"})
    assert json.loads(held.write_shard("a", f"Belief a {GH}, reworded.\n\nfragments:\n- {cite(D1, 1)}\n"))["ok"]


def test_a_dreams_summary_and_questions_are_redacted_before_they_are_recorded(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm")])
    commit_all(agent_dir)

    def script(inp, scratch):
        scratch.write_shard("pm", draft("The user uses pnpm", [inp.fragments[0].citation]))
        scratch.finish(f"Consolidated; the token was {GH}", questions=[f"Rotate {JWT}?"])

    receipt = run_dream(ws, dreamer=Scripted(script), review="all")
    assert receipt.reflection
    assert leaked(agent_dir, GH) == [] and leaked(agent_dir, JWT) == []
    log = subprocess.run(["git", "log", "-p", "--all"], cwd=agent_dir, capture_output=True, text=True).stdout
    assert GH not in log and JWT not in log


def test_a_dreamer_that_bypasses_its_tools_is_stopped_at_the_door(ws, agent_dir):
    write_stream(agent_dir, D, [fragment_line(D, 1, "pm", "uses pnpm")])
    sha = commit_all(agent_dir)

    def script(inp, scratch):
        scratch.files["pm"] = draft(f"The user uses pnpm with {NPM}", [inp.fragments[0].citation])

    receipt = run_dream(ws, dreamer=Scripted(script), review="none")
    assert receipt.status == "failed" and "would hold a secret (npm token)" in receipt.message
    assert NPM not in receipt.message
    assert not (agent_dir / "memory/topics/pm.md").exists()
    assert leaked(agent_dir, NPM) == []
    assert NPM not in subprocess.run(["git", "log", "-p", f"{sha}..HEAD"], cwd=agent_dir, capture_output=True, text=True).stdout
