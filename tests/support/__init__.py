"""What the tests share, each thing defined once, imported one way (`from tests.support.memory
import write_stream`) from whatever folder pytest starts in:

- `agent`: a TypeClaw agent folder (git repo, memory/ ignored, one commit); conftest's `agent_dir`.
- `git`: `git()` for assertions on history, `head`, `commit_count`, `git_dates` to pin commit times.
- `memory`: TypeClaw's exact stream and shard lines (`fragment_line`, `write_stream`, `shard_text`,
  `write_shard`, `cite`, `topics`, ...), and `commit_all` to commit prepared memory as TypeClaw would.
- `dreamers`: scripted and hostile dreamers speaking the tool protocol.
- `processes`: other processes: the command line (`python -m dreamdeck`) and tests/faults programs.
- `tui`: the app as tests open it (`make_app`) and the notifications it raised (`Notes`).
- `waits`: waiting for a condition or for the app's workers; never how long it took.
- `layers`: the import-layer contract's checker; `messages_api`: a real local HTTP server
  speaking the Messages API.
"""
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
"""The repository's root folder."""
