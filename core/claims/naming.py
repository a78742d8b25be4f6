"""A readable slug for a claim, in any script, always within TypeClaw's `SLUG_REGEX`.

`formats.slugs.heading_to_slug` is TypeClaw's own function and stays exact: it turns a heading
with no Latin letters into `untitled-<hash>`. The dreamer names its shards here instead:
- Latin text keeps its words (accents dropped): "Deploy process" -> `deploy-process`;
- Hangul is romanized syllable by syllable (Revised Romanization, without sound changes):
  "하트비트" -> `hateubiteu`, "규칙" -> `gyuchik`;
- a run of Han characters is in full pinyin without tones, word by word (pypinyin's phrases, its
  lone characters paired, as most Chinese words have two), each phrase read as a phrase
  ("银行" -> `yinhang`, not `yinxing`): "用户偏好使用飞书通知" ->
  `yonghu-pianhao-shiyong-feishu-tongzhi`. Grammar characters are no part of a word and never shift the
  pairing: the run is cut at 的了与及或吗呢吧啊 and at 在/和 outside their words (在线, 现在, 和平), and a leading preposition (和跟把被给对在) is
  dropped from a longer piece ("修复了登录页面" -> `xiufu-denglu-yemian`, not `xiufu-ledeng-luye`).
  Without a dictionary the pairing is a guess; these keep the guess on the word boundaries the
  grammar shows;
  pypinyin is imported only when Han text is named (its dictionaries cost about 0.25 s of CPU
  to load, once per process; a name then about 0.15 ms);
- a link is never part of a name ("read https://example.com/…" -> `read`);
- bare numbers are never a name ("1. 今日工作" is named by 今日工作); a slug that would be empty
  or only digits gets a short hash of the claim.
The first claim seen under a topic label takes the label's slug when it is free; other claims
add their own subject (a `key: value` key) or first words: `settings-backup-cron`. A slug is at
most `_MAX_WORDS` (6) words and `MAX_NAME` (40) characters, cut at a word: TypeClaw allows 64,
but a name is read in lists and paths, and 40 holds a label of two or three words and the
claim's first three, enough to tell siblings apart (a collision still gets the claim's hash), at
the length of an English slug; a 60-character pinyin slug reads as noise. A name still
taken then gets the claim's hash when it came from Han text (`xintiao-<hash>`: two readings
may share their letters), else a number (`settings-2`).
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

from dreamdeck.core.claims.extract import Claim
from dreamdeck.core.claims.tokens import STOPWORDS
from dreamdeck.core.formats.slugs import MAX_SLUG, heading_to_slug
from dreamdeck.core.formats.terminal_text import visible_text

__all__ = ["MAX_NAME", "claim_slug", "name_of", "romanize_hangul", "slug_words"]

_HANGUL_INITIAL = ["g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h"]
_HANGUL_VOWEL = ["a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we",
                 "wi", "yu", "eu", "ui", "i"]
_HANGUL_FINAL = ["", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p",
                 "t", "t", "ng", "t", "t", "k", "t", "p", "t"]
_PIECE = re.compile(r"[\uac00-\ud7a3]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[A-Za-z0-9]+")
_LINK = re.compile(r"\b(?:https?://|www\.)\S*")
_MAX_WORDS = 6
_MAX_WORD = 16
_MAX_HAN_WORDS = _MAX_WORDS  # pinyin words read from one Han run (no name holds more)
MAX_NAME = 40  # characters of a slug the dreamer names (see the module doc)
# Grammar characters: a Han run is cut at them, and a leading preposition leaves a longer piece.
_HAN_GRAMMAR = re.compile("(?:[的了与及或吗呢吧啊]|(?<![现存正实所])在(?![线于])|(?<![总温柔缓])和(?![平谐睦]))+")
_HAN_PREPOSITION = re.compile("^[和跟把被给对在](?=...)")


def romanize_hangul(text: str) -> str:
    out = []
    for ch in text:
        code = ord(ch) - 0xAC00
        if 0 <= code < 11172:
            out.append(_HANGUL_INITIAL[code // 588] + _HANGUL_VOWEL[(code % 588) // 28] + _HANGUL_FINAL[code % 28])
    return "".join(out)


def _han_words(run: str) -> list[str]:
    """A run of Han characters as its first `_MAX_HAN_WORDS` words in full pinyin ("用户偏好" ->
    `yonghu`, `pianhao`). Words are pypinyin's phrases; the characters it leaves alone are
    paired, as most Chinese words have two, within the pieces between grammar characters."""
    from pypinyin import Style, lazy_pinyin  # here: its dictionaries load only when Han text is named
    from pypinyin.seg.mmseg import seg

    out: list[str] = []
    for piece in _HAN_GRAMMAR.split(run):
        for word in _paired(list(seg.cut(_HAN_PREPOSITION.sub("", piece)))):
            if len(out) >= _MAX_HAN_WORDS:
                return out
            latin = "".join(c for s in lazy_pinyin(word, style=Style.NORMAL, errors="ignore") for c in s.lower()
                            if "a" <= c <= "z")
            if latin:
                out.append(latin)
    return out


def _paired(parts: list[str]) -> list[str]:
    """Phrases as they are, lone characters two by two ("修", "复", "登录" -> "修复", "登录")."""
    words: list[str] = []
    single = ""
    for part in [*parts, ""]:
        if len(part) == 1:
            single += part
            if len(single) < 2:
                continue
        if single:
            words.append(single)
            single = ""
        if len(part) > 1:
            words.append(part)
    return words


# A contraction's tail is no word of a slug ("I'll" -> "I", "don't" -> "do", "can't" -> "can").
_CAN_NOT = re.compile(r"\b(can|won)['’]t\b", re.IGNORECASE)
_CONTRACTION = re.compile(r"n['’]t\b|['’](?:ll|re|ve|d|s|m)\b", re.IGNORECASE)


@lru_cache(maxsize=65536)
def slug_words(text: str) -> tuple[tuple[str, ...], bool]:
    """(the words a slug can use, whether any came from Han text)."""
    text = visible_text(text)  # an escape's letters ("31m") are no words
    if "'" in text or "’" in text:
        text = _CONTRACTION.sub("", _CAN_NOT.sub(r"\1", text))
    # Accents go from Latin letters only: NFD would take Hangul syllables apart too.
    plain = text if text.isascii() else "".join(
        "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c)) if ch < "\u3000" else ch
        for ch in text
    )
    words: list[str] = []
    from_han = False
    for piece in _PIECE.findall(_LINK.sub(" ", plain)):
        if "\uac00" <= piece[0] <= "\ud7a3":
            word = romanize_hangul(piece)[:_MAX_WORD]
        elif piece[0].isascii():
            word = piece.lower()[:_MAX_WORD]
            if word.isdigit() or word in STOPWORDS:
                continue
        else:
            words += _han_words(piece)
            from_han = True
            continue
        if word:
            words.append(word)
    return tuple(words), from_han


def _digest(*parts: str) -> str:
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:6]


def name_of(words: list[str] | tuple[str, ...]) -> str:
    """Words as a name: each once, at most `_MAX_WORDS` of them and `MAX_NAME` characters, cut
    at a word (a first word longer than that is cut itself)."""
    out: list[str] = []
    for w in words:
        if w not in out:
            out.append(w)
    name = "-".join(out[:_MAX_WORDS])
    if len(name) <= MAX_NAME:
        return name
    return name[: name.rfind("-", 0, MAX_NAME + 1)] if "-" in name[: MAX_NAME + 1] else name[:MAX_NAME]


def claim_slug(label: str, claim: Claim, taken_lower: set[str] | frozenset[str] = frozenset()) -> str:
    """A free slug for a new shard holding `claim`, first seen under topic `label`.
    `taken_lower`: the slugs already in use, lowercased (TypeClaw compares them that way)."""
    label_words, label_han = slug_words(label)
    own_text = claim.subject_text if claim.subject else claim.text
    if label.strip() and own_text.startswith(label.strip()):  # "用户偏好用微信语音" under "用户偏好"
        own_text = own_text[len(label.strip()):]
    own_words, own_han = slug_words(own_text)
    candidates = []
    if label_words:
        candidates.append((name_of(label_words), label_han))
    candidates.append((name_of(label_words + own_words), label_han or own_han))
    slug, from_han = "", False
    for base, han in candidates:
        if not base or not re.search(r"[a-z]", base):
            base = f"{base or 'claim'}-{_digest(label, claim.text)}"
        slug = heading_to_slug(base[: MAX_SLUG - 3].rstrip("-"))
        if slug.lower() not in taken_lower:
            return slug
        from_han = from_han or han
    if from_han:  # two claims read alike: the claim's own hash tells them apart
        hashed = f"{slug[: MAX_SLUG - 7].rstrip('-')}-{_digest(label, claim.text)}"
        if hashed.lower() not in taken_lower:
            return hashed
    n = 2
    while f"{slug[: MAX_SLUG - len(str(n)) - 1]}-{n}".lower() in taken_lower:
        n += 1
    return f"{slug[: MAX_SLUG - len(str(n)) - 1]}-{n}"
