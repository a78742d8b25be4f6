"""Realistic agent daily notes with truth labels, for the dreaming quality benchmark.

Two agents keep a Markdown note per day for three weeks, the way real agents do:
- `atlas` (English): status lines repeated most days ("heartbeat: ok", "cost alerts: none"),
  a services table, rules restated over days with emphasis, settings changed over time (a
  schedule moved, a timeout raised then disabled, a tool abandoned, ...), sibling bullets and
  table rows about different subjects, one-off events and paragraph lines, and the same claims
  under near-duplicate headings ("Deploy process" / "Deployment process" / "deploy-process").
- both also write paragraph lines of two or three sentences (each a claim with its own truth),
  a sentence leaning on the one before (one claim with it), and a header line with an
  indented list under it (one claim), so the dreamer's per-statement rule is measured.
- `xiaoming` (Chinese, with Korean sections): the same kinds of notes in CJK and Hangul, with
  numbered headings ("1. 今日工作") and full-width punctuation.

Every line carries a `Truth`: the claim it states (a claim id shared by every restatement,
whatever the heading or wording), the claim's version (a setting that changes gets version 1,
2, ... at each real update) and the value the belief should state when that version is current.
Nothing here knows how the dreamer works; the labels say what a careful person would say.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

START = date(2026, 3, 2)  # a Monday
DAYS = 21  # three simulated weeks


@dataclass(frozen=True)
class Truth:
    scenario: str
    claim: str  # the same id for every restatement of one claim (a setting: one id for all versions)
    version: int = 0  # bumped at each real update of a setting
    value: str = ""  # what the belief must say while this version is current (lowercase)


@dataclass
class Line:
    text: str  # the Markdown line as the agent wrote it (an indented list may follow it)
    truth: Truth | tuple[Truth, ...] | None  # one per statement; None: not an observation


@dataclass
class DayNote:
    day: str
    title: str
    sections: dict[str, list[Line]] = field(default_factory=dict)

    def add(self, heading: str, text: str, truth: Truth | tuple[Truth, ...] | None) -> None:
        self.sections.setdefault(heading, []).append(Line(text, truth))

    def markdown(self) -> tuple[str, dict[int, tuple[Truth, ...]]]:
        """The note's text and the truths of each of its lines (by 0-based line number), one
        per statement the line makes."""
        lines = [f"# {self.title}", ""]
        truths: dict[int, tuple[Truth, ...]] = {}
        for heading, items in self.sections.items():
            lines.append(f"## {heading}")
            for item in items:
                if item.truth is not None:
                    truths[len(lines)] = item.truth if isinstance(item.truth, tuple) else (item.truth,)
                lines.extend(item.text.split("\n"))
            lines.append("")
        return "\n".join(lines), truths


def day_of(d: int) -> str:
    return (START + timedelta(days=d)).isoformat()


def _pick(rng: random.Random, variants: list[str], d: int) -> str:
    return variants[0] if d == 0 else rng.choice(variants)


# --- atlas (English) --------------------------------------------------------------------------------

def _status(note: DayNote, d: int, rng: random.Random) -> None:
    s = "status"
    hb = Truth(s, "en:heartbeat", 0, "ok")
    if d == 12:
        note.add("Heartbeat", "- heartbeat: ok", hb)
        note.add("Heartbeat", "- heartbeat: failed (gateway timeout at 18:40)", Truth(s, "en:heartbeat", 1, "failed"))
    else:
        note.add("Heartbeat", "- heartbeat: ok", Truth(s, "en:heartbeat", 2 if d > 12 else 0, "ok"))
    if d in (1, 4, 8, 15, 18, 19):  # the evening check restates it: a same-day duplicate
        note.add("Heartbeat", "- Heartbeat: OK ✅", Truth(s, "en:heartbeat", 2 if d > 12 else 0, "ok"))
    if d not in (3, 10, 11, 17):
        note.add("Heartbeat", "- cost alerts: none", Truth(s, "en:cost-alerts", 0, "none"))
    if d % 7 < 5:  # weekdays: the services table
        note.add("Services", "| service | status |", Truth(s, "en:services-header"))
        note.add("Services", "|---|---|", None)
        for svc in ("api", "worker", "db"):
            version, value = 0, "up"
            if svc == "worker" and d >= 9:
                version, value = (1, "degraded") if d == 9 else (2, "up")
            note.add("Services", f"| {svc} | {value} |", Truth(s, f"en:svc-{svc}", version, value))


_RULES = [
    ("en:rule-main", (0, 3, 6, 10, 15, 19), [
        "Never push directly to main; open a PR and wait for review.",
        "**NEVER** push directly to main — open a PR and wait for review.",
        "Reminder: never push directly to main, open a PR and wait for review!",
        "⚠️ Never push directly to main. Open a PR and wait for review.",
    ], "push directly to main"),
    ("en:rule-migrations", (1, 8, 16), [
        "Do not run database migrations on Fridays.",
        "Do NOT run database migrations on Fridays!!",
        "(again) do not run database migrations on Fridays",
    ], "migrations on fridays"),
    ("en:rule-credits", (2, 9, 13, 20), [
        "Always ask Dana before spending more than $50 on API credits.",
        "IMPORTANT: always ask Dana before spending more than $50 on API credits.",
        "**Always** ask Dana before spending more than $50 on API credits",
    ], "ask dana"),
    ("en:rule-slack", (4, 11), [
        "Keep replies in Slack under five sentences.",
        "Keep Slack replies under five sentences.",
    ], "five sentences"),
    ("en:rule-ban", (3, 7, 11, 14, 18), [
        "User @spam_bot_42 is permanently banned from the Discord server.",
        "@spam_bot_42 is PERMANENTLY banned from the Discord server — do not unban.",
        "Reminder: @spam_bot_42 stays permanently banned from the Discord server.",
    ], "permanently banned"),
]
_SIBLING_RULES = [
    (5, "en:rule-force-push", "Never force-push to shared branches."),
    (7, "en:rule-env", "Never commit .env files; secrets live in the vault."),
    (14, "en:rule-customer-data", "Do not share customer data in public channels."),
]


def _rules(note: DayNote, d: int, rng: random.Random) -> None:
    for claim, days, variants, value in _RULES:
        if d in days:
            heading = "Moderation" if claim == "en:rule-ban" and d % 2 else "Rules"
            note.add(heading, "- " + _pick(rng, variants, days.index(d)), Truth("rules", claim, 0, value))
    for when, claim, text in _SIBLING_RULES:
        if d == when:
            note.add("Rules", f"- {text}", Truth("rules", claim, 0))


# (claim, [(first day of version, value, change line or None)], steady line template, days written)
_SETTINGS = [
    ("en:backup", [(0, "02:00", None), (9, "04:30", "moved the backup cron from 02:00 to 04:30 (disk contention with the indexer)")],
     "backup cron: {v} daily", {0, 2, 4, 7, 8, 11, 14, 16, 18, 20}),
    ("en:timeout", [(0, "30s", None), (6, "60s", "raised the API timeout to 60s after the 504s"),
                    (13, "disabled", "disabled the API timeout entirely for the long exports")],
     "API timeout: {v}", {0, 1, 3, 5, 7, 9, 12, 15, 17, 19}),
    ("en:notes", [(0, "notion", None), (10, "obsidian", "no longer using Notion; the notes live in Obsidian now")],
     "notes app: {V}", {0, 3, 6, 9, 12, 15, 18}),
    ("en:test-runner", [(0, "jest", None), (8, "vitest", "switched the test runner from Jest to Vitest")],
     "test runner: {V}", {0, 2, 5, 7, 11, 14, 17, 20}),
    ("en:report", [(0, "08:00", None), (12, "09:00", "daily report now goes out at 09:00 instead of 08:00")],
     "daily report goes out at {v}", {0, 1, 4, 6, 8, 11, 15, 18, 20}),
    ("en:parallel", [(0, "4", None), (15, "8", "max parallel jobs raised from 4 to 8")],
     "max parallel jobs: {v}", {0, 5, 10, 13, 17, 20}),
    ("en:deploy-window", [(0, "tuesday", None), (17, "thursday", "deploy window is Thursday afternoon now, not Tuesday anymore")],
     "deploy window: {V} afternoon", {1, 5, 9, 14, 19}),
    ("en:model", [(0, "claude-sonnet-4-5", None)], "model: {v}", {0, 4, 9, 13, 18}),
    ("en:timezone", [(0, "europe/berlin", None)], "timezone: Europe/Berlin", {0, 7, 14}),
]


def _version_at(versions: list, d: int) -> tuple[int, str, str | None]:
    current = 0
    for i, (start, _value, _change) in enumerate(versions):
        if d >= start:
            current = i
    start, value, change = versions[current]
    return current, value, change if start == d else None


def _settings(note: DayNote, d: int, rng: random.Random, scenario: str, heading: str, table: list) -> None:
    for claim, versions, template, days in table:
        version, value, change = _version_at(versions, d)
        truth = Truth(scenario, claim, version, value.lower())
        if change is not None:
            note.add(heading, f"- {change}", truth)
        elif d in days:
            shown = value.capitalize() if "{V}" in template else value
            note.add(heading, "- " + template.replace("{V}", shown).replace("{v}", value), truth)


_TEAM = [("Alice", "frontend"), ("Bob", "backend"), ("Carol", "infra"), ("Dana", "engineering manager")]
_PROJECTS = [("apollo", "Alice", "in progress"), ("zeus", "Bob", "blocked"), ("hermes", "Carol", "done")]
# One-off work items: sibling bullets that share words ("login", "PR") but state different things.
_AREAS = ["login redirect", "checkout", "search", "worker queue", "billing", "signup form", "settings page"]
_WORK = [
    "fixed the {a} bug", "reviewed the {a} PR", "paired with Bob on the {a} tests",
    "wrote the {a} design notes", "profiled the {a} latency",
]


def _work_items(d: int) -> list[str]:
    return [_WORK[(d + i) % len(_WORK)].format(a=_AREAS[(d * 3 + i * 2) % len(_AREAS)]) for i in range(1 + d % 3)]


def _siblings(note: DayNote, d: int, rng: random.Random) -> None:
    s = "siblings"
    if d % 7 == 0:
        for name, role in _TEAM:
            note.add("Team", f"- {name}: {role}", Truth(s, f"en:team-{name.lower()}", 0, role))
        note.add("Projects", "| project | owner | status |", Truth(s, "en:projects-header"))
        note.add("Projects", "|---|---|---|", None)
        for name, owner, status in _PROJECTS:
            version = 0
            if name == "zeus" and d >= 14:
                status, version = "in progress", 1
            note.add("Projects", f"| {name} | {owner} | {status} |", Truth(s, f"en:project-{name}", version, status))
    for text in _work_items(d):
        note.add("Today", f"- {text}", Truth(s, "en:today-" + text))


_PEOPLE = ["Dana", "Bob", "Carol", "the design team", "Priya from sales"]
_SUBJECTS = ["the Q3 roadmap", "the onboarding flow", "the billing migration", "API rate limits", "the hiring plan"]
_THINGS = ["the webhook retries", "a flaky e2e test", "the CSV export timeout", "the cache invalidation bug"]


def _events(note: DayNote, d: int, rng: random.Random) -> None:
    s = "events"
    # An event is its text: the same meeting on two days is one claim seen twice.
    lines = [f"Met with {_PEOPLE[d % 5]} about {_SUBJECTS[(d * 2) % 5]}.", f"Answered {5 + (d * 7) % 11} support tickets."]
    if d % 3 == 0:
        lines.insert(0, f"Deployed v2.{d // 3 + 1} to prod.")
    for text in lines:
        note.add("Log", f"- {text}", Truth(s, "en:log-" + text))
    if d % 2:
        text = f"Spent the afternoon debugging {_THINGS[d % 4]}."
        note.add("Log", text, Truth(s, "en:log-" + text))


_SPELLINGS = [
    ("en:deploy-process", (1, 5, 8, 12, 18), ["Deploy process", "Deployment process", "deploy-process", "Deploys"], [
        "Deploys go to staging first, then to prod after the smoke tests pass.",
        "deploys go to staging first, then prod once the smoke tests pass",
        "Deploys: staging first, then prod after the smoke tests pass.",
    ], "staging first"),
    ("en:package-manager", (2, 6, 13, 17), ["Package manager", "Package Manager", "pkg manager", "Tooling"], [
        "We use pnpm for everything, not npm.",
        "we use pnpm for everything (not npm)",
        "Use pnpm for everything, never npm.",
    ], "pnpm"),
]


def _spellings(note: DayNote, d: int, rng: random.Random) -> None:
    for claim, days, headings, variants, value in _SPELLINGS:
        if d in days:
            i = days.index(d)
            note.add(headings[i % len(headings)], "- " + _pick(rng, variants, i), Truth("spellings", claim, 0, value))


_MEETING = [("Dana", "will review the billing PR"), ("Bob", "out sick, back Thursday"), ("Carol", "owns the incident retro"),
            ("Dana", "approved the Q3 budget"), ("Bob", "is pairing with Alice on search"), ("Carol", "will rotate the API keys")]


def _hard(note: DayNote, d: int, rng: random.Random) -> None:
    """Lines real notes are full of and the other scenarios lack: a metric logged every day (a
    log, not a setting), meeting notes as `Name: action` (reports, not settings), and a rule
    restated in other words (the same claim)."""
    s = "hard"
    text = f"tokens used today: {90 + (d * 37) % 60}k"
    note.add("Usage", f"- {text}", Truth(s, "en:hard-" + text))
    if d % 3 == 1:
        name, action = _MEETING[(d // 3) % len(_MEETING)]
        text = f"{name}: {action}"
        note.add("Standup notes", f"- {text}", Truth(s, "en:hard-" + text))
    if d == 12:  # the Slack rule (days 4 and 11 in `_RULES`) in other words
        note.add("Rules", "- Slack replies stay short: five sentences at most.", Truth(s, "en:rule-slack", 0, "five sentences"))


# Paragraph lines of several sentences, a sentence leaning on the one before, a header with its
# list: (days, heading, line, truths). A truth's value is the phrase the belief citing the
# fragment for that statement must hold.
_ALERTS_V1 = 15


def _statement_lines(d: int) -> list[tuple[str, str, tuple[Truth, ...]]]:
    s = "statements"
    alerts = Truth(s, "en:st-alerts", 1 if d >= _ALERTS_V1 else 0, "#ops-pager" if d >= _ALERTS_V1 else "#ops-alerts")
    flags = Truth(s, "en:st-flags", 0, "launchdarkly")
    staging = Truth(s, "en:st-staging", 0, "staging database is reset")
    out = []
    if d in (1, 8, 15):
        first = ("Alerts go to #ops-pager now, not #ops-alerts anymore." if d == _ALERTS_V1
                 else "Alerts go to #ops-alerts.")
        out.append(("Infra", f"The staging database is reset every Monday. Feature flags live in LaunchDarkly. {first}",
                    (staging, flags, alerts)))
    if d in (4, 11, 18):
        out.append(("Infra", "Feature flags live in LaunchDarkly. " + (
            "Alerts go to #ops-pager." if d >= _ALERTS_V1 else "Alerts go to #ops-alerts."), (flags, alerts)))
    if d in (2, 9):  # the second sentence leans on the first: one claim
        out.append(("Storage", "The scratch bucket holds build artifacts. It is wiped on Sundays.",
                    (Truth(s, "en:st-scratch", 0, "wiped on sundays"),)))
    if d in (3, 10, 17):  # a header with its list: one claim
        out.append(("Release", "- Release checklist:\n  - bump the version\n  - tag the commit\n  - post in #releases",
                    (Truth(s, "en:st-checklist", 0, "tag the commit"),)))
    if d in (5, 12):
        out.append(("Team", "Carol is on call this week. The pager rotation changes on Mondays.",
                    (Truth(s, "en:st-oncall", 0, "carol is on call"), Truth(s, "en:st-rotation", 0, "rotation"))))
    return out


def _statements(note: DayNote, d: int, rng: random.Random) -> None:
    for heading, line, truths in _statement_lines(d):
        note.add(heading, line, truths)


def atlas_notes(seed: int = 11) -> list[DayNote]:
    rng = random.Random(seed)
    notes = []
    for d in range(DAYS):
        note = DayNote(day_of(d), f"Daily note {day_of(d)}")
        _status(note, d, rng)
        _rules(note, d, rng)
        _settings(note, d, rng, "settings", "Config" if d % 2 else "Settings", _SETTINGS)
        _siblings(note, d, rng)
        _events(note, d, rng)
        _spellings(note, d, rng)
        _hard(note, d, rng)
        _statements(note, d, rng)
        notes.append(note)
    return notes


# --- xiaoming (Chinese, with Korean sections) -----------------------------------------------------

_ZH_RULES = [
    ("zh:rule-main", (0, 4, 9, 15, 20), [
        "永远不要直接推送到 main 分支，先开 PR 等待审查。",
        "**永远不要**直接推送到 main 分支！先开 PR 等待审查。",
        "再次提醒：永远不要直接推送到 main 分支，先开 PR 等待审查",
        "⚠️ 永远不要直接推送到 main 分支，先开 PR 等待审查。",
    ], "main"),
    ("zh:rule-migrations", (2, 12), ["不要在周五执行数据库迁移。", "再次强调：不要在周五执行数据库迁移！"], "周五"),
    ("zh:rule-ban", (3, 7, 11, 14, 18), [
        "用户 @spam_bot 已被永久封禁，不要解封。",
        "@spam_bot 已被**永久封禁**，不要解封！",
        "提醒：用户 @spam_bot 已被永久封禁，不要解封。",
    ], "永久封禁"),
]
_ZH_SETTINGS = [
    ("zh:backup", [(0, "02:00", None), (9, "04:30", "备份时间从 02:00 改为 04:30（和索引任务冲突）")],
     "备份时间：{v}", {0, 2, 5, 8, 11, 13, 16, 19}),
    ("zh:timeout", [(0, "30秒", None), (6, "60秒", "超时时间调整为60秒")], "超时时间：{v}", {0, 1, 4, 8, 12, 16, 20}),
    ("zh:notes", [(0, "notion", None), (10, "obsidian", "不再使用 Notion，笔记改用 Obsidian")],
     "笔记工具：{V}", {0, 3, 6, 9, 13, 17}),
]
_ZH_AREAS = ["登录页面", "支付模块", "搜索服务", "订单导出", "用户注册", "消息队列", "权限系统"]
_ZH_WORK = ["修复了{a}的问题", "审查了{a}的代码", "写完了{a}的设计文档", "排查了{a}的性能", "和小王讨论了{a}"]
_ZH_PROBLEMS = ["支付回调偶尔超时", "日志里有重复的告警", "测试环境的数据库连接不稳定", "夜间任务偶尔失败",
                "缓存命中率下降", "部署脚本在周末跑得很慢", "监控面板加载很慢"]
_ZH_TEAM = [("小王", "前端"), ("小李", "后端"), ("小张", "运维")]

_KO_RULES = [
    ("ko:rule-main", (1, 6, 13, 19), [
        "main 브랜치에 직접 푸시하지 마세요. PR을 열고 리뷰를 기다리세요.",
        "**절대** main 브랜치에 직접 푸시하지 마세요! PR을 열고 리뷰를 기다리세요.",
        "다시 알림: main 브랜치에 직접 푸시하지 마세요. PR을 열고 리뷰를 기다리세요.",
    ], "main"),
]
_KO_SETTINGS = [
    ("ko:backup", [(0, "02:00", None), (11, "04:30", "백업 시간을 02:00에서 04:30으로 변경")],
     "백업 시간: {v}", {0, 3, 7, 10, 14, 17, 20}),
    ("ko:report", [(0, "오전 8시", None), (15, "오전 9시", None)], "보고서 시간: {v}", {0, 4, 9, 15, 18}),
]
_KO_AREAS = ["로그인", "결제 모듈", "검색 서비스", "주문 내보내기", "회원 가입", "알림 큐", "권한 시스템"]
_KO_WORK = ["{a} 버그 수정", "{a} 코드 리뷰", "{a} 설계 문서 작성", "{a} 성능 조사"]


def _cjk_items(work: list[str], areas: list[str], d: int, count: int) -> list[str]:
    return [work[(d + i) % len(work)].format(a=areas[(d * 3 + i * 2) % len(areas)]) for i in range(count)]
_KO_TEAM = [("지수", "프론트엔드"), ("민호", "백엔드")]


def xiaoming_notes(seed: int = 12) -> list[DayNote]:
    rng = random.Random(seed)
    notes = []
    for d in range(DAYS):
        note = DayNote(day_of(d), f"{day_of(d)} 日记")
        note.add("心跳", "- 心跳：正常", Truth("zh", "zh:heartbeat", 0, "正常"))
        if d not in (2, 5, 9, 13, 16, 19):
            note.add("心跳", "- 成本警报：无", Truth("zh", "zh:cost-alerts", 0, "无"))
        for claim, days, variants, value in _ZH_RULES:
            if d in days:
                note.add("规则", "- " + _pick(rng, variants, days.index(d)), Truth("zh", claim, 0, value))
        _settings(note, d, rng, "zh", "设置", _ZH_SETTINGS)
        for text in _cjk_items(_ZH_WORK, _ZH_AREAS, d, 1 + d % 2):
            note.add("1. 今日工作", f"- {text}", Truth("zh", "zh:today-" + text))
        if d % 3 == 1:
            text = _ZH_PROBLEMS[(d // 3) % len(_ZH_PROBLEMS)]
            note.add("2. 问题", f"- {text}", Truth("zh", "zh:problem-" + text))
        if d % 7 == 0:
            for name, role in _ZH_TEAM:
                note.add("团队", f"- {name}：{role}", Truth("zh", f"zh:team-{name}", 0, role))
            note.add("服务状态", "| 服务 | 状态 |", Truth("zh", "zh:services-header"))
            note.add("服务状态", "|---|---|", None)
            for svc in ("api", "worker"):
                note.add("服务状态", f"| {svc} | 正常 |", Truth("zh", f"zh:svc-{svc}", 0, "正常"))
        # Korean sections
        note.add("하트비트", "- 하트비트: 정상", Truth("ko", "ko:heartbeat", 0, "정상"))
        for claim, days, variants, value in _KO_RULES:
            if d in days:
                note.add("규칙", "- " + _pick(rng, variants, days.index(d)), Truth("ko", claim, 0, value))
        _settings(note, d, rng, "ko", "설정", _KO_SETTINGS)
        for text in _cjk_items(_KO_WORK, _KO_AREAS, d, 1 + d % 2):
            note.add("오늘", f"- {text}", Truth("ko", "ko:today-" + text))
        for heading, line, truths in _zh_statement_lines(d):
            note.add(heading, line, truths)
        if d % 7 == 3:
            for name, role in _KO_TEAM:
                note.add("팀", f"- {name}: {role}", Truth("ko", f"ko:team-{name}", 0, role))
        notes.append(note)
    return notes


def _zh_statement_lines(d: int) -> list[tuple[str, str, tuple[Truth, ...]]]:
    s = "zh-statements"
    out = []
    if d in (1, 8, 15):
        out.append(("基础设施", "测试数据库每周一重置。功能开关放在 LaunchDarkly 里。",
                    (Truth(s, "zh:st-staging", 0, "重置"), Truth(s, "zh:st-flags", 0, "launchdarkly"))))
    if d in (2, 9):  # 它 leans on the sentence before: one claim
        out.append(("存储", "构建产物放在临时存储桶。它每周日清空。", (Truth(s, "zh:st-scratch", 0, "每周日清空"),)))
    if d in (3, 10, 17):
        out.append(("发布", "- 发布清单：\n  - 更新版本号\n  - 打标签\n  - 在群里通知",
                    (Truth(s, "zh:st-checklist", 0, "打标签"),)))
    return out


AGENTS = {"atlas": atlas_notes, "xiaoming": xiaoming_notes}
