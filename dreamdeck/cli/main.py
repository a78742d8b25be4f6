"""`dreamdeck`: one verb set for people, scripts and agents (see DESIGN.md, Command line).

`dreamdeck [PATH]` opens the app; every other verb is a subcommand. Bad input is one line on
stderr and a non-zero status, never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback

from dreamdeck.cli.common import CliError, warn
from dreamdeck.core.errors import DreamdeckError
from dreamdeck.core.formats.terminal_text import terminal_text


class _Verbs:
    """A command module imported when one of its verbs runs: a fresh `dreamdeck recall` does
    not pay for the imports of `dreamdeck dream`."""

    def __init__(self, module: str):
        self._module = module

    def __getattr__(self, name: str):
        def run(args):
            return getattr(importlib.import_module(self._module), name)(args)

        return run


A, R, W = _Verbs("dreamdeck.cli.agent"), _Verbs("dreamdeck.cli.read"), _Verbs("dreamdeck.cli.write")
D = _Verbs("dreamdeck.cli.doctor")


def _actor_default() -> str:
    from dreamdeck.core.formats.actors import human_actor

    return human_actor()


class OneLineParser(argparse.ArgumentParser):
    """A usage error is one line on stderr (status 2), like every other refusal; `-h` shows usage."""

    commands: list[str]  # every verb, built or not (`build_parser`)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.commands = []

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, terminal_text(f"{self.prog}: {one_line(message)} (see `{self.prog} --help`)") + "\n")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text if value is not None else repr(text)}")
    return value


def count_or_all(text: str) -> int:
    """A count where 0 means all, as TypeClaw's `memory dreams --limit 0` lists every dream."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"must be a number, 0 for all, not {text if value is not None else repr(text)}")
    return value


class _Unbuilt:
    """A subcommand's parser left unbuilt (`build_parser(only=...)`): its arguments go nowhere."""

    def add_argument(self, *args, **kwargs) -> None:
        pass

    def add_mutually_exclusive_group(self, **kwargs) -> _Unbuilt:
        return self


def build_parser(only: str | None = None) -> OneLineParser:
    """Every subcommand, or with `only` just that one (argparse building 32 subparsers cost a
    fresh `dreamdeck recall` 15-25 ms): a named verb's help, usage and errors are its own
    subparser's, the same either way. `parser.commands` names every verb in both cases."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-w", "--workspace", default=".", metavar="PATH", help="agent folder (default: .)")
    common.add_argument("--today", metavar="YYYY-MM-DD", help="pretend today is this local date")
    common.add_argument("--json", action="store_true", help="machine-readable output")
    actor = argparse.ArgumentParser(add_help=False)
    actor.add_argument("--actor", default=_actor_default(), help="who is acting (audit and commit trailer)")

    p = OneLineParser(prog="dreamdeck", description="The long-term memory of an AI agent, with a human at the controls.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def cmd(name, func, help, parents=(common,)):
        p.commands.append(name)
        if only is not None and name != only:
            return _Unbuilt()
        sp = sub.add_parser(name, help=help, parents=list(parents), description=help)
        sp.set_defaults(func=func)
        return sp

    sp = cmd("open", _cmd_open, "open the app on a workspace")
    sp.add_argument("path", nargs="?", default=None)
    sp = cmd("demo", _cmd_demo, "generate a demo workspace and open the app on it")
    sp.add_argument("dir", nargs="?", default=None)
    sp.add_argument("--no-open", action="store_true", help="only create it and print its path")

    sp = cmd("topics", R.cmd_topics, "the strength table")
    sp.add_argument("--sort", metavar="COL[:asc|desc]", help="sort by a column: slug heading cites days last_reinforced age tier score status")
    sp.add_argument("--reverse", action="store_true")
    sp = cmd("show", R.cmd_show, "a shard with its citations resolved to fragments")
    sp.add_argument("slug")
    sp.add_argument("--vault", action="store_true", help="show the pinned copy")
    sp = cmd("stream", R.cmd_stream, "print fragments (latest day, --date D, or --all)")
    sp.add_argument("--date", metavar="YYYY-MM-DD")
    sp.add_argument("--all", action="store_true")
    sp.add_argument("--follow", "-f", action="store_true", help="keep printing new fragments")
    sp = cmd("dreams", R.cmd_dreams, "dream commits, newest first")
    sp.add_argument("--limit", type=count_or_all, default=20, help="at most N dreams (0: all, as TypeClaw)")
    sp.add_argument("--details", action="store_true",
                    help="accepted as TypeClaw's `memory dreams --details`; the detail is always included")
    sp = cmd("log", R.cmd_log, "memory commits with actor, approval and trigger")
    sp.add_argument("--limit", type=positive_int, default=50)
    sp = cmd("collected", R.cmd_collected, "each fragment line a commit's GC removed from the streams, with why")
    sp.add_argument("rev", nargs="?", default="HEAD")
    sp = cmd("audit", R.cmd_audit, "memory/meta/audit.log, filtered")
    for flag in ("--action", "--actor", "--file", "--since", "--until"):
        sp.add_argument(flag)
    sp = cmd("verify", R.cmd_verify, "citations present at REV and missing now (exit 1 if any)")
    sp.add_argument("rev", nargs="?", default="HEAD")
    sp = cmd("doctor", D.cmd_doctor, "what would hurt the agent; --fix repairs what needs no judgement")
    sp.add_argument("--fix", action="store_true")
    sp.add_argument("--accept-losses", action="store_true",
                    help="accept the loss of the fragments another writer removed (doctor's outside-loss)")
    sp.add_argument("--restore-losses", action="store_true",
                    help="put the fragments another writer removed back from git history")

    sp = cmd("remember", W.cmd_remember, "append a fragment to today's stream")
    sp.add_argument("text")
    sp.add_argument("--topic", required=True)
    sp.add_argument("--source", default="dreamdeck:cli")
    sp.add_argument("--who")
    sp = cmd("dream", W.cmd_dream, "consolidate undreamed fragments now")
    sp.add_argument("--dreamer", choices=("auto", "offline", "anthropic"))
    sp.add_argument("--review", choices=("none", "all", "judgement"))
    sp.add_argument("--dry-run", action="store_true")
    sp = cmd("watch", W.cmd_watch, "watch the streams and dream when the gates allow")
    sp.add_argument("--dreamer", choices=("auto", "offline", "anthropic"))
    sp.add_argument("--review", choices=("none", "all", "judgement"))

    sp = cmd("review", W.cmd_review, "pending reflections (r-…) and proposals (p-…), or one item")
    sp.add_argument("id", nargs="?")
    sp.add_argument("--impact", action="store_true", help="which recall answers approving r-N (or --hunk H...) changes")
    sp.add_argument("--hunk", action="append", metavar="H", help="with --impact: only these hunks")
    sp = cmd("approve", W.cmd_approve, "apply a reflection (all or --hunk H...) or commit a proposal", (common, actor))
    sp.add_argument("id")
    sp.add_argument("--hunk", action="append", metavar="H")
    sp.add_argument("--mechanical", action="store_true",
                    help="approve the mechanical hunks: pure reinforcements and new claims with no contradiction")
    sp.add_argument("--edit", action="store_true", help="edit the proposed text in $EDITOR first")
    sp.add_argument("--force", action="store_true", help="decide a stale reflection anyway")
    sp = cmd("reject", W.cmd_reject, "reject a reflection or proposal", (common, actor))
    sp.add_argument("id")
    sp.add_argument("--reason", required=True)
    sp.add_argument("--release", action="store_true", help="let the next dream see its fragments again")
    sp = cmd("defer", W.cmd_defer, "leave a proposal for later", (common, actor))
    sp.add_argument("id")
    sp = cmd("propose", W.cmd_propose, "a sub-agent proposes a memory (it cannot write one)")
    sp.add_argument("--from", dest="from_agent", required=True)
    sp.add_argument("--store", required=True, choices=("episodic", "semantic", "procedural", "vault"))
    sp.add_argument("--content", required=True)
    sp.add_argument("--confidence", default="medium", choices=("high", "medium", "low"))
    sp.add_argument("--entities")
    sp.add_argument("--core-worthy", action="store_true")

    sp = cmd("edit", W.cmd_edit, "edit a topic shard in $EDITOR; saved through the door", (common, actor))
    sp.add_argument("slug")
    sp = cmd("pin", W.cmd_pin, "pin a topic (SLUG) or a fragment (DATE#ID) to the vault", (common, actor))
    sp.add_argument("target")
    sp.add_argument("--refresh", action="store_true", help="a pinned topic that changed since: take its current version")
    sp.add_argument("--restore", action="store_true",
                    help="a pinned topic changed outside dreamdeck: put the vault copy back into topics/")
    sp = cmd("unpin", W.cmd_unpin, "remove a topic from the vault", (common, actor))
    sp.add_argument("slug")
    cmd("vault", W.cmd_vault, "pinned items")
    sp = cmd("forget", W.cmd_forget, "forget a topic (SLUG) or a fragment (DATE#ID)", (common, actor))
    sp.add_argument("target")
    sp.add_argument("--reason", required=True)
    sp.add_argument("--hard", action="store_true", help="also remove the line and its text from every file under memory/")
    sp.add_argument("--content", metavar="HASH", help="which line, by its content hash, when several share the id")
    sp = cmd("unforget", W.cmd_unforget, "undo a forget that was not --hard", (common, actor))
    sp.add_argument("target")
    cmd("tombstones", W.cmd_tombstones, "forgotten fragments")
    sp = cmd("rollback", W.cmd_rollback, "undo a memory commit as a new commit", (common, actor))
    sp.add_argument("rev", help="the commit to undo; with --to, the revision or YYYY-MM-DD to restore memory to")
    sp.add_argument("--to", action="store_true", help="point in time: restore memory as it was at REV (or that date)")
    sp.add_argument("--preview", action="store_true")
    sp.add_argument("--strict", action="store_true", help="refuse when later commits overlap")
    sp.add_argument("--no-redream", action="store_true")
    sp = cmd("alerts", W.cmd_alerts, "critical-file changes since the baseline")
    sp.add_argument("--ack", action="store_true")
    cmd("init", W.cmd_init, "start a git history here (git init and one commit of memory/)", (common, actor))

    sp = cmd("recall", A.cmd_recall, "what the agent gets back for a question: ranked, decay-aware, budgeted; "
             "--save/--unsave/--saved keep the questions `review r-N --impact` replays", (common, actor))
    sp.add_argument("query", nargs="?", help="the question (words, any language)")
    sp.add_argument("--budget", default="balanced", metavar="lean|balanced|deep|auto",
                    help="how many results: lean 2-3, balanced 5-7 (default), deep 10-15, auto from the query")
    sp.add_argument("--limit", metavar="N", help="at most N results")
    sp.add_argument("--max-bytes", metavar="B", help="at most B bytes of headings and excerpts")
    sp.add_argument("--include-dormant", action="store_true", help="also what decay made dormant")
    saved = sp.add_mutually_exclusive_group()
    saved.add_argument("--save", action="store_true",
                       help="save the question for the recall impact instead of asking it (a commit)")
    saved.add_argument("--unsave", action="store_true", help="remove the question from the saved ones (a commit)")
    saved.add_argument("--saved", action="store_true", help="list the saved questions")
    sp = cmd("inject", A.cmd_inject, "the # Memory block TypeClaw would put into the next turn (v0.45.1)")
    sp.add_argument("--query", default="", metavar="TEXT", help="the turn's user text (default: empty)")
    sp.add_argument("--budget", default="16384", metavar="BYTES", help="injectionBudgetBytes (default 16384, at least 4096)")
    sp.add_argument("--origin", default="main", metavar="main|channel", help="a main (TUI) turn or a channel turn")
    sp.add_argument("--mode", default="turn", metavar="turn|direct",
                    help="direct: the pre-v0.45 section with whole bodies (old workspaces)")
    sp = cmd("access", A.cmd_access, "what the agent was shown: recalls and injections, newest first")
    sp.add_argument("--limit", default="20", metavar="N")
    return p


# Commands that change memory: in a folder without git their changes are never committed.
CHANGES_MEMORY = {"remember", "dream", "watch", "approve", "reject", "defer", "propose", "edit", "pin", "unpin",
                  "forget", "unforget", "rollback", "doctor", "alerts"}


# Read views of the shards: a shard file left out for a link is named once, as a warning
# (`recall` names the ones its index's sweep left out: one listing of the folders, not two).
READS_SHARDS = {"topics", "show", "verify", "review", "vault", "inject"}


def _warn_linked_shards(args) -> None:
    from pathlib import Path

    from dreamdeck.cli.common import warn_linked
    from dreamdeck.core.store.shard_files import linked_shards

    memory = Path(args.workspace).resolve() / "memory"
    for area in ("topics", "vault", "archive"):
        for path, why in linked_shards(memory / area):
            warn_linked(f"{area}/{Path(path).name}", why)


def _say_no_history_once(args) -> None:
    from pathlib import Path

    from dreamdeck.core.git.init import NO_HISTORY, has_history
    from dreamdeck.core.io.once import first_time

    root = Path(args.workspace).resolve()
    if root.is_dir() and not has_history(root) and first_time("no-history", str(root)):
        warn(f"dreamdeck: note: {NO_HISTORY.format(root=root)}; `dreamdeck init` starts one (said once)")


def _cmd_open(args) -> int:
    from dreamdeck.core.workspace import Workspace

    ws = Workspace.open(args.path or args.workspace, today=args.today)
    from dreamdeck.tui.app import run_app

    return run_app(ws)


def _cmd_demo(args) -> int:
    import tempfile
    from pathlib import Path

    from dreamdeck.demo.open import demo_notice
    from dreamdeck.demo.stage import create_demo
    from dreamdeck.tui.demo_app import open_demo

    # A short folder name: the app's tab bar shows it.
    target = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="dreamdeck-demo-")) / "pico"
    if target.exists() and any(target.iterdir()):
        raise CliError(f"{target} is not empty; give `dreamdeck demo` a new or empty folder")
    try:
        demo = create_demo(target.resolve(), today=args.today)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.no_open:
        print(target.resolve())
        return 0
    print(demo_notice(target.resolve()))
    return open_demo(demo.ws)


_VALUED = ("-w", "--workspace", "--today")


def _command_first(argv: list[str], commands: set[str]) -> list[str]:
    """Allow `dreamdeck -w DIR topics`: move the verb in front of options given before it."""
    i = 0
    while i < len(argv):
        token = argv[i]
        if token in _VALUED:
            i += 2
            continue
        if token.startswith("-"):
            i += 1
            continue
        if token in commands and i > 0:
            return [token, *argv[:i], *argv[i + 1:]]
        return argv
    return argv


EXIT_BUG = 70  # EX_SOFTWARE


def one_line(text: str) -> str:
    return " ".join(text.split())


def _not_a_command_nor_a_folder(word: str, commands: set[str]) -> str | None:
    """`dreamdeck proposals`: a bare word that names no folder here was meant as a command, not as
    a workspace to open; say so (with the command it looks like) instead of "workspace … does not exist"."""
    if word.startswith(("-", ".", "~")) or os.sep in word or os.path.lexists(word):
        return None
    stem = word.lower()[:4]
    alike = sorted(c for c in commands if len(stem) == 4 and c[:4] == stem)
    hint = f"did you mean `{'` or `'.join(alike)}`? " if alike else ""
    return f"{word!r} is neither a command nor a folder here ({hint}`dreamdeck --help` lists the commands)"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = set(build_parser(only="").commands)
    argv = _command_first(argv, commands)
    if not argv or (argv[0] not in commands and argv[0] not in ("-h", "--help")):
        if argv and (mistyped := _not_a_command_nor_a_folder(argv[0], commands)):
            warn(f"dreamdeck: {mistyped}")
            return 2
        argv = ["open", *argv]  # `dreamdeck [PATH]` opens the app
    args = build_parser(only=argv[0] if argv[0] in commands else None).parse_args(argv)
    try:
        if args.command == "watch":  # runs until stopped: said up front
            _say_no_history_once(args)
        if args.command in READS_SHARDS:
            _warn_linked_shards(args)
        status = int(args.func(args) or 0)
        if status == 0 and args.command in CHANGES_MEMORY - {"watch"}:
            _say_no_history_once(args)  # after a change that went through: a refusal changed nothing
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except DreamdeckError as exc:
        warn(f"dreamdeck: {one_line(str(exc)) or type(exc).__name__}")
        return exc.status
    except OSError as exc:  # the machine said no (a full disk, a permission): not a bug in dreamdeck
        where = f": {exc.filename}" if exc.filename else ""
        warn(f"dreamdeck: {exc.strerror or exc}{where}")
        return 1
    except Exception:  # anything else is a bug: show it whole
        traceback.print_exc()
        print("dreamdeck: this is a bug in dreamdeck; please report it with the traceback above", file=sys.stderr)
        return EXIT_BUG


if __name__ == "__main__":
    sys.exit(main())
