"""Three-way merges with `git merge-file`: of texts, and of shards (the one shard merge).

A shard is merged as its parts: the body line by line, heading and tags as values, counts
recomputed after (they change on every reinforcement, so a text merge of whole files would
conflict on `cites:` lines the recompute rewrites anyway).
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from dreamdeck.core.formats.shards import ShardMeta, parse_loose_shard, recompute_shard_text, render_shard
from dreamdeck.core.git.runner import run_isolated


def merge3(base: str, ours: str, theirs: str,
           labels: tuple[str, str, str] = ("current", "base", "proposed"), *, favor_theirs: bool = False) -> tuple[str, bool]:
    """3-way merge with `git merge-file -p`. Returns (merged text, conflicted).

    A conflicted result holds standard <<<<<<< / ======= / >>>>>>> markers labelled with
    labels[0] (ours) and labels[2] (theirs); with `favor_theirs`, overlapping parts resolve to
    `theirs` instead (`--theirs`) and the result is never reported conflicted.
    """
    with tempfile.TemporaryDirectory(prefix="dreamdeck-merge-") as tmp:
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            Path(tmp, name).write_bytes(text.encode("utf-8"))
        args = ["merge-file", "-p", *(["--theirs"] if favor_theirs else []),
                "-L", labels[0], "-L", labels[1], "-L", labels[2], "ours", "base", "theirs"]
        # merge-file exits with the number of conflicts (capped at 127); negative = error.
        status, out = run_isolated(args, tmp, range(0, 128))
    return out.decode("utf-8"), status > 0


def rebase_change(base: str | None, current: str | None,
                  proposed: str | None) -> tuple[str | None, bool]:
    """Replay a proposal made against `base` onto the file as it is now (`current`).

    Returns (text to write, conflicted); None means "the file should not exist". Cases,
    checked in this order:
      1. current == base: nothing moved under the proposal -> (proposed, False).
      2. proposed == base: the proposal changes nothing -> (current, False).
      3. proposed == current: the change is already there -> (current, False).
      4. proposed is None (delete) but the file was edited since -> (current, True):
         a modify/delete conflict, like git's; the text has no markers.
      5. current is None (deleted since) but the proposal edits it -> (proposed, True):
         a delete/modify conflict; the text has no markers.
      6. otherwise a 3-way merge, base None counting as an empty base (both sides created
         the file) -> merge3(base or "", current, proposed), markers on conflict.
    """
    if current == base:
        return proposed, False
    if proposed == base or proposed == current:
        return current, False
    if proposed is None:
        return current, True
    if current is None:
        return proposed, True
    return merge3(base or "", current, proposed)


def merge_value(base, ours, theirs):
    """Three-way merge of one value: (value, conflicted); `theirs` is returned on a conflict."""
    if ours == base or ours == theirs:
        return theirs, False
    if theirs == base:
        return ours, False
    return theirs, True


def merge_shards(base: str | None, ours: str | None, theirs: str | None, slug: str, today: str,
                 *, favor_theirs: bool = False) -> tuple[str | None, bool]:
    """Replay the change base→theirs onto `ours` (the file as it is now): (text, conflicted).

    Without `favor_theirs` a conflict gives back `ours` unchanged (the caller refuses); with it,
    overlapping parts resolve to `theirs` (a rollback: the earlier side wins) and the result
    is reported conflicted so the caller can say so. A missing side is a whole-file decision
    (`rebase_change`).
    """
    if base is None or ours is None or theirs is None:
        return rebase_change(base, ours, theirs)
    b, o, t = (parse_loose_shard(x) for x in (base, ours, theirs))
    body, conflicted = rebase_change(b.body, o.body, t.body)
    if conflicted and favor_theirs:
        body = merge3(b.body, o.body, t.body, favor_theirs=True)[0]
    heading, h_conflict = merge_value(b.heading, o.heading, t.heading)
    tags, t_conflict = merge_value(b.tags, o.tags, t.tags)
    conflicted = conflicted or h_conflict or t_conflict
    if (conflicted and not favor_theirs) or body is None:
        return ours, True
    text = render_shard(ShardMeta(heading or slug, 0, 0, today, tags), body)
    return recompute_shard_text(text, slug, today)[0], conflicted
