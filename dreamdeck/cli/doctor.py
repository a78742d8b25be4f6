"""`dreamdeck doctor`: a module of its own, so its first run (issue 10 item 14: under 2 s on a
year) does not pay for the strength table's, the shard heads' and the report's imports that the
other read verbs need (~0.05 s of CPU before its stream worker could start)."""
from __future__ import annotations

from dreamdeck.cli.common import emit_json, open_ws, say, warn
from dreamdeck.core.formats.terminal_text import terminal_line


def _settle_losses(ws, args) -> None:
    """`--restore-losses` / `--accept-losses`: what a person decides about fragments another
    writer removed (doctor's outside-loss findings), each one audited commit."""
    from dreamdeck.core.ops.unrecorded_loss import accept_outside_losses, restore_outside_losses

    if getattr(args, "restore_losses", False):
        result, unfound = restore_outside_losses(ws)
        say(f"restore-losses: put back from git history (commit {result.sha[:10]})" if result and result.sha
            else "restore-losses: nothing to restore")
        if unfound:
            warn(f"not in git history, still recorded: {', '.join(f'{d}#{i}' for d, i in unfound)}")
    if getattr(args, "accept_losses", False):
        result = accept_outside_losses(ws)
        say(f"accept-losses: accepted, recorded in commit {result.sha[:10]}" if result and result.sha
            else "accept-losses: nothing to accept")


def cmd_doctor(args) -> int:
    from dreamdeck.core.ops.doctor import examine, fix

    ws = open_ws(args)
    _settle_losses(ws, args)
    report = fix(ws) if args.fix else examine(ws)
    if args.json:
        emit_json(report.to_json())
        return 0 if report.healthy else 1
    for line in report.fixed:  # one line each: a file named with a newline forges no "healthy" line
        say(terminal_line(f"fixed: {line}"))
    for f in report.findings:
        say(terminal_line(f"{'fixable' if f.fixable else 'needs you'}: {f}"))
    if report.healthy:
        say("healthy: TypeClaw can load everything and nothing cited is missing")
    elif not args.fix and any(f.fixable for f in report.findings):
        say("run `dreamdeck doctor --fix` to repair what needs no judgement")
    return 0 if report.healthy else 1
