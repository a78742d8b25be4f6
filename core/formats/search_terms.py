"""Words for the search index: a CJK-aware split, and a query turned into an FTS5 expression.

SQLite's `unicode61` tokenizer splits on spaces and punctuation, so a run of Chinese, Japanese,
Korean or Thai text (no spaces between words, or Korean particles glued to them) would be one
token nobody ever types. Before text reaches the index, each such run is rewritten as its
overlapping bigrams plus its single characters ("한국어로" → "한국 국어 어로 한 국 어 로"); a
query run becomes the phrase of its bigrams, or the single character. Why not the `trigram`
tokenizer: it cannot match anything shorter than three characters, and most Chinese and Korean
words are two (北京, 언어); it also finds English inside words ("port" in "support") and cannot
stem. Bigrams are what search engines do for these scripts (Lucene's CJK bigram filter), and
the rest of the text keeps `porter unicode61` (English stems, diacritics folded).
"""
from __future__ import annotations

from dreamdeck.core.formats.lazy_re import lazy_re

# Scripts written without spaces between words (or with particles glued on, as Korean).
_CJK = (
    "\u0e00-\u0eff"  # Thai, Lao
    "\u1000-\u109f"  # Myanmar
    "\u1100-\u11ff"  # Hangul Jamo
    "\u1780-\u17ff"  # Khmer
    "\u2e80-\u2fdf"  # CJK radicals
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u312f\u3130-\u318f\u31a0-\u31ff"  # Bopomofo, Hangul compatibility Jamo, Katakana ext.
    "\u3400-\u4dbf\u4e00-\u9fff"  # CJK ideographs
    "\ua960-\ua97f\uac00-\ud7ff"  # Hangul
    "\uf900-\ufaff\uff66-\uff9f"  # compatibility ideographs, halfwidth Katakana
    "\U00020000-\U0003134f"  # CJK extensions B–G
)
_CJK_RUN = lazy_re(f"[{_CJK}]+")
_SEGMENT = lazy_re(f"[{_CJK}]+|[^{_CJK}]+")
_EDGE_PUNCT = "".join(chr(c) for c in range(33, 127) if not chr(c).isalnum()) + "“”‘’«»…¿¡、。，！？：；（）"

# Marks are part of words (Devanagari, Thai vowel signs), as letters and digits are.
TOKENIZER = "porter unicode61 remove_diacritics 2 categories 'L* N* Co M*'"

# Function words that say nothing about which memory is meant. English only: CJK function
# words are single characters, which a query run only uses when it is one character long.
STOPWORDS = frozenset("""
a an the and or but nor so if then than i me my mine myself you your yours he him his she her hers it
its we us our ours they them their theirs this that these those here there what when where who whom
whose why how which is am are was were be been being do does did doing have has had having can could
should would will shall may might must about as at by for from in into of on onto to with without over
under after before between up down out off again also just not no yes very too any some all each
please tell know think say said thing things stuff get got let lets s t d ll re ve m o
""".split())


def _expand(run: str) -> str:
    if len(run) == 1:
        return run
    bigrams = [run[i:i + 2] for i in range(len(run) - 1)]
    return " " + " ".join(bigrams) + " " + " ".join(run) + " "


def index_text(text: str) -> str:
    """`text` as stored in the index: CJK runs rewritten as bigrams and characters."""
    return _CJK_RUN.sub(lambda m: _expand(m.group(0)), text)


def query_pieces(query: str) -> list[str]:
    """The words of a query worth searching for, in order, without repeats or stopwords: each
    CJK run, and each other whitespace-separated word with its edge punctuation taken off (FTS5
    tokenizes a quoted piece itself, so "package-manager" stays the phrase it is)."""
    out: list[str] = []
    for chunk in query.lower().split():
        for m in _SEGMENT.finditer(chunk):
            piece = m.group(0)
            if not _CJK_RUN.fullmatch(piece):
                piece = piece.strip(_EDGE_PUNCT)
                if not any(ch.isalnum() for ch in piece) or piece in STOPWORDS:
                    continue
            if piece not in out:
                out.append(piece)
    return out


def _fts_terms(piece: str) -> list[str]:
    """A word as FTS5 terms. A CJK run is each of its bigrams (Korean glues particles to words
    and a question rarely repeats a sentence's exact run) plus, when longer, the run itself as a
    phrase, which ranks documents holding it whole above those holding its pieces."""
    if _CJK_RUN.fullmatch(piece) and len(piece) > 1:
        bigrams = [piece[i:i + 2] for i in range(len(piece) - 1)]
        return [f'"{b}"' for b in bigrams] + (['"' + " ".join(bigrams) + '"'] if len(bigrams) > 1 else [])
    return ['"' + piece.replace('"', '""') + '"']


def match_terms(query: str) -> list[str]:
    """The query's FTS5 phrases, each once, in order (`match_expression` joins them)."""
    return list(dict.fromkeys(t for p in query_pieces(query) for t in _fts_terms(p)))


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH expression: any of the query's words (BM25 ranks documents holding more of
    them, and rarer ones, higher); None when the query has no word worth searching for."""
    terms = match_terms(query)
    return " OR ".join(terms) if terms else None


def content_words(query: str) -> int:
    """How many words the query asks about (a CJK run counts one word per two characters)."""
    total = 0
    for piece in query_pieces(query):
        total += max(1, len(piece) // 2) if _CJK_RUN.fullmatch(piece) else 1
    return total
