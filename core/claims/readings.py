"""Readings: status lines whose value is a measurement taken at a moment, never a setting.

An agent's notes restate readings every day ("disk: 61% used", "queue depth: 14", "heartbeat:
ok at 09:00"). A reading's newer value is simply the belief, like a ticked task: nothing for a
person to judge. A setting's new value ("backup cron: 03:00", "moved the backup cron from 02:00
to 03:00") still asks. `is_reading(claim)`, by rule:
- the claim is a `key: value` line or a table row, and its change is not announced (a change
  verb, "no longer", "instead of": a setting someone changed);
- its key names nothing a person configures: no bound ("max", "limit", "threshold", "最多"…,
  `measures`) and none of `_SETTING_WORDS` ("timeout", "retention", "schedule", "cron"…);
- its value is a measurement: a status ("ok", "failed", "degraded", "正常", "정상"; then a time
  of day or an aside may follow: "ok at 09:00"), or a number, bare or with a percent or a unit
  of size, rate, count or milliseconds ("61%", "14", "120 ms", "3.2 GB", "114k"), then at most
  a word saying of what ("61% used", "14 pending"; before it only in Chinese or Korean, "已用
  61%"). A duration in seconds or more, a clock time alone, a day, a version or a word ("30s",
  "02:00", "Tuesday", "node 20", "1.2.3", "Obsidian") is a setting's.
- a version is a setting's value, an upgrade the person should see: three dotted numbers
  ("1.2.3"), a "v" number ("v20"), a `tool@version` ("node@20"), and a bare number ("3.12",
  "20", "24.04") under a key whose last word names software (`_SOFTWARE`: "python", "node",
  "postgres", "macOS"…). The same key with a status or a measured value is still a reading
  ("postgres: healthy", "python jobs: 3 pending").
"""
from __future__ import annotations

import re

from dreamdeck.core.claims.extract import Claim
from dreamdeck.core.claims.measures import BOUNDS

__all__ = ["is_reading", "newer_reading"]

_STATUS = (
    r"ok|okay|fine|healthy|unhealthy|green|yellow|amber|red|up|down|degraded|failed|failing|"
    r"passed|passing|error|errors|erroring|timeout|timed out|online|offline|"
    r"正常|异常|失败|成功|故障|在线|离线|정상|비정상|실패|성공|오류|장애"
)
_TIME = r"\d{1,2}[:.]\d{2}(?:\s*[ap]\.?m\.?)?"
_NUMBER = r"[-+]?\d+(?:,\d{3})*(?:\.\d+)?(?![.\d])"  # "1,204", "0.4"; never a version ("1.2.3")
_UNIT = r"%|ms|µs|us|[kmgt]i?b|bytes?|[km]|rps|qps|req/s|ops/s|/s|/min|°c|°f|x"
_OF_WHAT = r"[a-z]+|[\u4e00-\u9fff]{1,4}|[\uac00-\ud7a3]{1,4}"
# "ok", "failed (gateway timeout)", "ok at 09:00", "OK ✅", "正常"
_STATUS_VALUE = re.compile(
    rf"^(?:{_STATUS})(?:\s*(?:at|@|since|as of)?\s*{_TIME})?(?:\s*\([^()]*\))?[\s\W]*$", re.IGNORECASE)
# "61%", "61% used", "14", "120 ms", "3.2 GB free", "已用 61%", "114k"; a word before the number
# only in Chinese or Korean ("已用 61%"): "node 20" names a tool's version, a setting.
_MEASURED_VALUE = re.compile(
    rf"^(?:(?:[\u4e00-\u9fff]{{1,4}}|[\uac00-\ud7a3]{{1,4}})\s*)?{_NUMBER}\s*(?:{_UNIT})?(?:\s+(?:{_OF_WHAT}))?(?:\s*\([^()]*\))?[\s.]*$",
    re.IGNORECASE)
# Runtimes, tools, systems and services whose bare number is a version ("python: 3.12").
_SOFTWARE = frozenset("""
python python3 py node nodejs npm pnpm yarn bun deno go golang rust rustc cargo java jdk jre kotlin
scala swift ruby rails php perl dotnet gcc clang llvm cmake make postgres postgresql psql mysql
mariadb sqlite redis mongodb mongo elasticsearch kafka nginx apache caddy docker podman kubernetes
k8s kubectl helm terraform ansible ubuntu debian fedora alpine centos rhel macos ios android
windows kernel linux chrome chromium firefox safari electron react vue angular nextjs next django
flask fastapi typescript tsc eslint prettier vite webpack pytest pip poetry uv conda cuda pytorch
torch tensorflow openssl openssh git bash zsh fish vim neovim nvim emacs vscode xcode homebrew
brew openclaw typeclaw claude gpt llama sdk cli firmware bios
""".split())
_BARE_NUMBER = re.compile(r"^\d+(?:\.\d+)*$")
_SETTING_WORDS = re.compile(
    r"\b(?:timeouts?|ttl|retention|interval|schedule[sd]?|cron|window|delay|debounce|quota|budget|"
    r"target|default|threshold|sampling|replicas?|concurrency|retries|version|model|port|size limit|"
    r"frequency|cadence|deadline|rate limit|plan|tier|policy|setting|config)\b"
    r"|超时|保留|间隔|计划|定时|窗口|配额|预算|阈值|采样|版本|模型|端口|설정|주기|제한|버전|모델",
    re.IGNORECASE)


def is_reading(claim: Claim) -> bool:
    """The claim is a reading (see the module doc): its newer value replaces it mechanically."""
    if not (claim.keyed and claim.subject and claim.value_text) or claim.marker or claim.rejected:
        return False
    key, value = claim.subject_text, claim.value_text.strip()
    if BOUNDS.search(key) or _SETTING_WORDS.search(key):
        return False
    if _BARE_NUMBER.match(value) and key.split()[-1].lower() in _SOFTWARE:
        return False  # a version ("python: 3.12"): see the module doc
    return bool(_STATUS_VALUE.match(value) or _MEASURED_VALUE.match(value))


def newer_reading(old: Claim, new: Claim, *, same_topic: bool = True) -> bool:
    """`new` reads what `old` reads, with another value: the same key (a one-word key, "disk:",
    only within one topic), both readings, and neither value includes the other ("ok" / "ok at
    09:00" is the same reading)."""
    if not (old.subject and old.subject == new.subject and (same_topic or len(old.subject) > 1)):
        return False
    a, b = old.value, new.value
    return bool(a) and bool(b) and not (a <= b or b <= a) and is_reading(old) and is_reading(new)
