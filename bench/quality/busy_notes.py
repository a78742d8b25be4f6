"""A busy week of notes the way real agents keep them, with truth labels: forty bullets a day.

Two agents, `busy-en` (English) and `busy-zh` (Chinese), each write seven daily notes of about
forty lines: bullets opening with a timestamp ("09:12 restarted the worker", "[14:03] ..."),
links (bare and Markdown), code spans, emoji, a jobs table whose "last run" cell changes every
day (a log, not a setting: each row one more observation of its job, the job's claim), "TODO"
and checkbox lines, quoted chat ("> Dana: can we ship
Friday?"), status lines repeated daily, and one-off work items. Nothing here changes a setting,
so every superseded fragment is a false contradiction, and every statement must stay cited.

A truth's claim is the line's text without its timestamp (the same line on two days is one
claim seen twice); no line has a version.
"""
from __future__ import annotations

import random

from corpus import DayNote, Truth, day_of

DAYS = 7
PER_DAY = 40

_EN_FIXED = [  # written every day: status and a jobs table (the last-run times differ daily)
    ("Status", "- heartbeat: ok ✅"),
    ("Status", "- cost today: ${cost}"),
]
_EN_JOBS = ["nightly-export", "reindex", "log-rotate"]
_EN_POOL = [
    ("Log", "- {t} restarted the worker after the OOM"),
    ("Log", "- [{t}] Dana asked for the Q3 numbers"),
    ("Log", "- {t} — 🔥 p95 latency spiked to 900ms on /search"),
    ("Log", "- PR merged: https://github.com/acme/api/pull/{n} (fix the retry loop)"),
    ("Log", "- see [the failover runbook](https://wiki.acme.dev/runbooks/db-failover) before touching the primary"),
    ("Log", "- `make deploy-staging` needs `AWS_PROFILE=staging` set"),
    ("Log", "- run `pnpm test --filter api` before pushing"),
    ("Log", "- 🎉 shipped search v2 to 10% of users"),
    ("Log", "- ✅ backups verified for the {day}"),
    ("Log", "- ⚠️ disk on db-2 at 81%"),
    ("Log", "- paired with Bob on the flaky checkout e2e test 🐛"),
    ("Log", "- read https://example.com/blog/postgres-vacuum and took notes"),
    ("Log", "- the CSV export timeout is back (ticket PLAT-{n})"),
    ("Log", "- Carol owns the incident retro for INC-{n}"),
    ("Log", "- reviewed `src/billing/invoice.py`, left 6 comments"),
    ("Todo", "- TODO: rotate the staging API key"),
    ("Todo", "- TODO: write the migration guide for v3"),
    ("Todo", "- [ ] update the on-call handbook"),
    ("Todo", "- [x] update the changelog"),
    ("Todo", "- [ ] ask Priya about the enterprise trial"),
    ("Chat", "> Dana: can we ship Friday?"),
    ("Chat", "> me: yes if CI is green by Thursday"),
    ("Chat", "> Bob: the flaky test is `test_checkout_total`, I'll quarantine it"),
    ("Chat", "> Priya: the customer wants SSO by March"),
    ("Notes", "The search index rebuild takes about 40 minutes. It runs after the nightly export."),
    ("Notes", "Standup moved to the #eng-standup channel. Notes go in the wiki."),
    ("Notes", "Ideas: cache the pricing page; precompute the weekly digest; drop the legacy /v1 routes"),
    ("Links", "- https://grafana.acme.dev/d/api-latency"),
    ("Links", "- [status page](https://status.acme.dev) 📈"),
    ("Links", "- design doc: https://docs.acme.dev/search-v2 (comments due 2026-03-13)"),
    ("Log", "- 😴 quiet afternoon, cleaned up old branches"),
    ("Log", "- talked to @dana about the hiring plan"),
    ("Log", "- `git bisect` found the regression in a3f9c21"),
    ("Log", "- answered {n2} support tickets"),
    ("Log", "- the 502s on /login were the load balancer health check"),
]

_ZH_FIXED = [("状态", "- 心跳：正常 ✅"), ("状态", "- 今日成本：${cost}")]
_ZH_JOBS = ["夜间导出", "重建索引", "日志轮转"]
_ZH_POOL = [
    ("日志", "- {t} 内存溢出后重启了 worker"),
    ("日志", "- [{t}] 小王要 Q3 的数据"),
    ("日志", "- {t} 🔥 /search 的 p95 延迟涨到 900ms"),
    ("日志", "- 合并了 PR：https://github.com/acme/api/pull/{n}（修复重试循环）"),
    ("日志", "- 动主库之前先看[故障切换手册](https://wiki.acme.dev/runbooks/db-failover)"),
    ("日志", "- `make deploy-staging` 需要先设置 `AWS_PROFILE=staging`"),
    ("日志", "- 推送前先跑 `pnpm test --filter api`"),
    ("日志", "- 🎉 搜索 v2 上线到 10% 的用户"),
    ("日志", "- ✅ {day}的备份已验证"),
    ("日志", "- ⚠️ db-2 磁盘用到 81%"),
    ("日志", "- 和小李一起看了不稳定的结账 e2e 测试 🐛"),
    ("日志", "- 读了 https://example.com/blog/postgres-vacuum 并做了笔记"),
    ("日志", "- CSV 导出超时又出现了（工单 PLAT-{n}）"),
    ("日志", "- 小张负责 INC-{n} 的复盘"),
    ("日志", "- 审查了 `src/billing/invoice.py`，留了6条评论"),
    ("待办", "- TODO：轮换测试环境的 API 密钥"),
    ("待办", "- TODO：写 v3 的迁移指南"),
    ("待办", "- [ ] 更新值班手册"),
    ("待办", "- [x] 更新变更日志"),
    ("聊天", "> 小王：周五能发布吗？"),
    ("聊天", "> 我：如果周四 CI 通过就可以"),
    ("聊天", "> 小李：不稳定的测试是 `test_checkout_total`，我先隔离它"),
    ("笔记", "搜索索引重建大约需要40分钟。它在夜间导出之后运行。"),
    ("笔记", "站会改到 #eng-standup 频道了。会议记录放在 wiki 里。"),
    ("链接", "- https://grafana.acme.dev/d/api-latency"),
    ("链接", "- [状态页](https://status.acme.dev) 📈"),
    ("日志", "- 😴 下午比较清闲，清理了旧分支"),
    ("日志", "- 和 @xiaowang 聊了招聘计划"),
    ("日志", "- `git bisect` 找到了 a3f9c21 引入的回归"),
    ("日志", "- 回复了{n2}个工单"),
    ("日志", "- /login 的 502 是负载均衡的健康检查导致的"),
]
# Lines whose reference changes daily but that state the same thing again (it recurred).
_SAME_CLAIM = {"- the CSV export timeout is back (ticket PLAT-{n})", "- CSV 导出超时又出现了（工单 PLAT-{n}）"}
# Paragraph lines stating two claims: the phrase each claim's belief holds.
_TWO_STATEMENTS = {
    "Standup moved to the #eng-standup channel. Notes go in the wiki.": ("standup", "wiki"),
    "站会改到 #eng-standup 频道了。会议记录放在 wiki 里。": ("站会", "wiki"),
}
_STAMP_PREFIXES = ("{t} ", "[{t}] ", "{t} — ")


def _claim_of(text: str, fields: dict[str, str]) -> str:
    """The claim a line states: its text without the timestamp (the same line on another day,
    at another time, is the same claim seen again)."""
    for prefix in _STAMP_PREFIXES:
        stamped = "- " + prefix.format(**fields)
        if text.startswith(stamped):
            return "- " + text[len(stamped):]
    return text


def _day(lang: str, d: int, rng: random.Random) -> DayNote:
    en = lang == "en"
    note = DayNote(day_of(d), f"Daily note {day_of(d)}" if en else f"{day_of(d)} 日记")
    scenario = f"busy-{lang}"
    fields = {"cost": f"{rng.randint(2, 9)}.{rng.randint(10, 99)}", "day": day_of(d)}
    for heading, line in _EN_FIXED if en else _ZH_FIXED:
        text = line.format(**fields)
        note.add(heading, text, Truth(scenario, f"{lang}:{text}"))  # a cost line differs daily: its own observation
    jobs_heading = "Jobs" if en else "任务"
    note.add(jobs_heading, "| job | last run | result |" if en else "| 任务 | 上次运行 | 结果 |",
             Truth(scenario, f"{lang}:jobs-header"))
    note.add(jobs_heading, "|---|---|---|", None)
    for i, job in enumerate(_EN_JOBS if en else _ZH_JOBS):
        row = f"| {job} | 0{2 + i}:{rng.randint(0, 59):02d} | {'ok' if en else '正常'} |"
        note.add(jobs_heading, row, Truth(scenario, f"{lang}:job:{job}"))  # one more run of the job
    pool = _EN_POOL if en else _ZH_POOL
    used: set[str] = set()
    for heading, line in rng.sample(pool, k=min(len(pool), PER_DAY - 6)):
        fields |= {"t": f"{rng.randint(8, 19):02d}:{rng.randint(0, 59):02d}", "n": str(rng.randint(100, 999)),
                   "n2": str(rng.randint(3, 19))}
        text = line.format(**fields)
        if text in used:
            continue
        used.add(text)
        claim = f"{lang}:{line if line in _SAME_CLAIM else _claim_of(text, fields)}"
        statements = _TWO_STATEMENTS.get(line)
        truth = tuple(Truth(scenario, f"{claim}#{i}", 0, value) for i, value in enumerate(statements)) if statements \
            else Truth(scenario, claim)
        note.add(heading, text, truth)
    return note


def busy_week(lang: str, seed: int = 7) -> list[DayNote]:
    rng = random.Random(seed)
    return [_day(lang, d, rng) for d in range(DAYS)]


AGENTS = {"busy-en": lambda: busy_week("en"), "busy-zh": lambda: busy_week("zh")}
