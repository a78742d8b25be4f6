"""Issue 10 item 12, disguised: a key written so a literal pattern does not see it.

Fullwidth letters (what an IME or a copy from a CJK page gives), a zero-width joiner, space or
soft hyphen inside the key (invisible when shown, kept by a copy), and the key encoded in base64
(a config blob, a Kubernetes secret): each is still the key, so each is refused on ingest and
redacted before an LLM sees it; the redaction covers the disguise whole. Text that only looks
unusual (CJK notes, fullwidth punctuation, base64 of plain words) stays untouched.
"""
from __future__ import annotations

import base64
import subprocess
import sys

import pytest

from dreamdeck.core.formats.secrets import detect_secrets, redact_secrets, secret_families

AWS = "AK" + "IA" + "Q3EGRT7YH4M2KX5W"
GH = "gh" + "p_" + "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7"
SK_ANT = "sk-" + "ant-api03-" + "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7jK9m"


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


DISGUISES = [
    ("fullwidth aws key", f"the key is {fullwidth(AWS)} for prod", fullwidth(AWS), "aws access key"),
    ("fullwidth github token", f"token {fullwidth(GH)}", fullwidth(GH), "github token"),
    ("zero-width joiner inside an aws key", f"key {AWS[:4]}\u200d{AWS[4:]} ok", AWS[4:], "aws access key"),
    ("zero-width space inside a github token", f"{GH[:3]}\u200b{GH[3:]}", GH[3:], "github token"),
    ("soft hyphen inside an anthropic key", f"use {SK_ANT[:10]}\u00ad{SK_ANT[10:]} now", SK_ANT[10:], "anthropic key"),
    ("word joiners between every character", "\u2060".join(AWS), "\u2060".join(AWS)[8:], "aws access key"),
    ("base64 of an aws key", f"AWS_BLOB: {b64(AWS)}", b64(AWS), "aws access key"),
    ("base64 of a github token", f"data {b64(GH)} end", b64(GH), "github token"),
    ("base64 of a password assignment", f"cfg={b64('password=Tr0ub4dor&3xK9q')}", b64("password=Tr0ub4dor&3xK9q"),
     "secret assignment"),
    ("base64url of an anthropic key without padding", base64.urlsafe_b64encode(SK_ANT.encode()).decode().rstrip("="),
     base64.urlsafe_b64encode(SK_ANT.encode()).decode().rstrip("=")[:30], "anthropic key"),
]

UNUSUAL_BUT_ORDINARY = [
    "用户更喜欢使用 pnpm 而不是 npm。",
    "ＣＰＵ使用率は８０％です（ピーク時）",
    "the deploy window：Ｔｕｅｓｄａｙ　１４：００",
    "a\u200dfamily emoji 👨\u200d👩\u200d👧 and a soft\u00adhyphen",
    "aGVsbG8gd29ybGQ= is hello world in base64",
    b64("the user prefers tea over coffee in the morning"),
    "integrity sha512-Ab3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7jK9mN1pQ2sT4vW6yZ8aB3dE5gH7jK9mN1pQ2sT4vW6yZ8Q==",
]


@pytest.mark.parametrize("name, text, secret, family", DISGUISES, ids=[d[0] for d in DISGUISES])
def test_a_disguised_key_is_detected_and_redacted_whole(name, text, secret, family):
    assert_found_and_redacted_whole(name, text, secret, family)


def assert_found_and_redacted_whole(name: str, text: str, secret: str, family: str) -> None:
    assert family in secret_families(text), name
    redacted = redact_secrets(text)
    assert secret not in redacted
    assert f"[REDACTED:{family}]" in redacted
    assert detect_secrets(redacted) == []


@pytest.mark.parametrize("text", UNUSUAL_BUT_ORDINARY)
def test_unusual_but_ordinary_text_is_not_a_secret(text):
    assert detect_secrets(text) == []
    assert redact_secrets(text) == text


def test_the_span_of_a_disguised_key_is_in_the_original_text():
    text = f"x {fullwidth(AWS)} y"
    [finding] = detect_secrets(text)
    assert text[finding.start:finding.end] == fullwidth(AWS)


def test_remember_refuses_a_fullwidth_key_and_a_base64_key_and_writes_nothing(agent_dir):
    stream = agent_dir / "memory" / "streams" / "2026-05-22.jsonl"
    for body in (f"prod key {fullwidth(AWS)}", f"prod key {b64(GH)}", f"prod key {AWS[:4]}\u200d{AWS[4:]}"):
        proc = subprocess.run([sys.executable, "-m", "dreamdeck", "-w", str(agent_dir), "--today", "2026-05-22",
                               "remember", "--topic", "deploy", body], capture_output=True, text=True)
        assert proc.returncode == 2 and "contains a secret" in proc.stderr, proc.stderr
    assert not stream.exists()


# Look-alike letters of another script, keys spelled out with spaces, hex and %-encoding.
_CYRILLIC = str.maketrans("AKIEOPCXHMTBaeopcxy", "АКІЕОРСХНМТВаеорсху")
_GREEK = str.maketrans("AKIEOPXHMTBZNYo", "ΑΚΙΕΟΡΧΗΜΤΒΖΝΥο")
SK_PROJ = "sk-" + "proj-" + "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8"

DISGUISES_MORE = [
    ("cyrillic look-alikes in an aws key", f"key {AWS.translate(_CYRILLIC)} ok", AWS.translate(_CYRILLIC), "aws access key"),
    ("greek look-alikes in an aws key", f"key {AWS.translate(_GREEK)} ok", AWS.translate(_GREEK), "aws access key"),
    ("a cyrillic p in a github token's prefix", f"t {GH[:3].translate(_CYRILLIC)}{GH[3:]} t",
     GH[3:], "github token"),
    ("cyrillic look-alikes in an openai key", f"use {SK_PROJ.translate(_CYRILLIC)}", SK_PROJ[6:], "openai key"),
    ("a github token spelled out with spaces", f"token: {' '.join(GH)} thanks", " ".join(GH), "github token"),
    ("an aws key spelled out with spaces", f"the key is {' '.join(AWS)}.", " ".join(AWS), "aws access key"),
    ("a hex-encoded aws key", f"blob {AWS.encode().hex()} end", AWS.encode().hex(), "aws access key"),
    ("an upper-case hex-encoded github token", f"x={GH.encode().hex().upper()}", GH.encode().hex().upper(),
     "github token"),
    ("a %-encoded github token", f"https://example.com/cb?t={''.join(f'%{b:02X}' for b in GH.encode())}",
     "".join(f"%{b:02X}" for b in GH.encode()), "github token"),
    ("a partly %-encoded openai key", f"q=sk%2D{SK_PROJ[3:]}", SK_PROJ[8:], "openai key"),
]

ORDINARY_MORE = [
    "commit 3f5e2a9c1b7d4e6f8a0b2c4d6e8f0a1b3c5d7e9f fixed the flaky test",
    "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 of the release tarball",
    "Сергей предпочитает чай, а Анна — кофе; встреча в среду в 14:00.",
    "Η ομάδα ΚΑΙ ο πελάτης συμφώνησαν στην ΑΠΟΦΑΣΗ για την Τρίτη.",
    "사용자는 아침에 차를 마시는 것을 좋아합니다. 회의는 화요일입니다.",
    "数据库迁移到法兰克福，周二上线。用户喜欢用 pnpm。",
    "the answer is a b c d e f g h i j k l m n o p q r s t",
    "search?q=caf%C3%A9%20near%20the%20station%20open%20late",
    "uuid 019e4d44-9200-7f80-8f80-000000124f80 and 0x7fffffffffffffff",
]


@pytest.mark.parametrize("name, text, secret, family", DISGUISES_MORE, ids=[d[0] for d in DISGUISES_MORE])
def test_a_key_in_look_alike_letters_spaced_out_or_hex_or_percent_encoded_is_found_and_redacted(
        name, text, secret, family):
    assert_found_and_redacted_whole(name, text, secret, family)


@pytest.mark.parametrize("text", ORDINARY_MORE)
def test_hashes_prose_in_other_scripts_and_ordinary_encodings_are_not_secrets(text):
    assert detect_secrets(text) == []
    assert redact_secrets(text) == text


# Keys with no ASCII letter or digit left in them: every letter a Cyrillic or Greek look-alike,
# the digits look-alikes too (Cyrillic З for 3, б for 6, fullwidth or mathematical digits); and
# keys written as escapes (`\x41`, `\u0041`, `\u{41}`, `&#65;`), as code, JSON or HTML carry them.
AWS_LETTERS = "AK" + "IA" + "EXMPOTBSHKXECAPM"  # an AWS key shape whose letters all have look-alikes
_CYRILLIC_ALL = str.maketrans("AKIEXMPOTBSHCaeopcxysijk", "АКІЕХМРОТВЅНСаеорсхуѕіјк")
SK_LETTERS = "sk-" + "aBcEHijKMopTXysxeaBcEH"


def escaped(text: str, form: str) -> str:
    return "".join(form.format(ord(c)) for c in text)


X_AWS = escaped(AWS, "\\x{:02x}")
U_GH = escaped(GH, "\\u{:04x}")
UB_GH = escaped(GH, "\\u{{{:x}}}")
U_CYR = escaped("АКІА", "\\u{:04x}")

DISGUISES_WHOLE = [
    ("an aws key wholly in cyrillic letters", f"ключ {AWS_LETTERS.translate(_CYRILLIC_ALL)} для прода",
     AWS_LETTERS.translate(_CYRILLIC_ALL), "aws access key"),
    ("an aws key in cyrillic letters and look-alike digits", "key АКІАЗЕНМОКСРТХВЅАбНЗ ok", "АКІАЗЕНМОКСРТХВЅАбНЗ",
     "aws access key"),
    ("an aws key in cyrillic letters and fullwidth digits", "key АКІА１２ЕН３４МОКСРТХВ５６ ok", "АКІА１２ЕН３４МОКСРТХВ５６",
     "aws access key"),
    ("an aws key in greek letters and mathematical digits", "key ΑΚΙΑ𝟏𝟐ΕΗ𝟑𝟒ΜΟΚΧΡΤΖΒ𝟓𝟔 ok", "ΑΚΙΑ𝟏𝟐ΕΗ𝟑𝟒ΜΟΚΧΡΤΖΒ𝟓𝟔",
     "aws access key"),
    ("an openai key wholly in cyrillic letters", f"use {SK_LETTERS.translate(_CYRILLIC_ALL)} now",
     SK_LETTERS.translate(_CYRILLIC_ALL), "openai key"),
    ("an aws key as \\x escapes", 'k = "' + X_AWS + '"', X_AWS, "aws access key"),
    ("an aws key as upper-case \\x escapes", "k=" + X_AWS.upper().replace("\\X", "\\x") + ";",
     X_AWS.upper().replace("\\X", "\\x"), "aws access key"),
    ("a github token as \\u escapes", '{"t": "' + U_GH + '"}', U_GH, "github token"),
    ("a github token as \\u{} escapes", "const t = '" + UB_GH + "'", UB_GH, "github token"),
    ("an aws key as html entities", "<code>" + escaped(AWS, "&#{};") + "</code>", escaped(AWS, "&#{};"),
     "aws access key"),
    ("an aws key as hex html entities", "<b>" + escaped(AWS, "&#x{:x};") + "</b>", escaped(AWS, "&#x{:x};"),
     "aws access key"),
    ("an aws key partly escaped", "id AKIA\\x51" + AWS[5:] + " end", "AKIA\\x51" + AWS[5:], "aws access key"),
    ("cyrillic look-alikes as \\u escapes", 's="' + U_CYR + AWS[4:] + '"', U_CYR + AWS[4:], "aws access key"),
    ("base64 of an aws key in cyrillic letters", f"blob {b64(AWS_LETTERS.translate(_CYRILLIC_ALL))} end",
     b64(AWS_LETTERS.translate(_CYRILLIC_ALL)), "aws access key"),
]

ORDINARY_WHOLE = [
    "СРОЧНО: ВСЕ ТЕСТЫ ПРОШЛИ, РЕЛИЗ В СРЕДУ. КОМАНДА СОГЛАСНА, АНТОН ОТВЕТСТВЕННЫЙ.",
    "Вот как это работает: о сроках сообщат в среду, а ресурсы выделят к концу квартала.",
    "ΑΝΑΚΟΙΝΩΣΗ: Η ΟΜΑΔΑ ΜΕΤΑΚΙΝΕΙ ΤΗΝ ΚΥΚΛΟΦΟΡΙΑ ΣΤΗΝ ΤΡΙΤΗ ΚΑΙ ΤΗΝ ΠΕΜΠΤΗ.",
    "ΚΑΤΕΧΟΜΕΝΟΠΟΙΗΜΕΝΟ ΚΑΤΑΚΕΡΜΑΤΙΣΜΕΝΟ ΥΠΕΡΚΑΤΑΝΑΛΩΤΙΚΟ",
    '{"name": "caf\\u00e9 cr\\u00e8me br\\u00fbl\\u00e9e", "city": "Z\\u00fcrich"}',
    '{"greeting": "\\u4f60\\u597d\\uff0c\\u4e16\\u754c\\uff01\\u6570\\u636e\\u5e93\\u8fc1\\u79fb"}',
    "C:\\Users\\xavier\\AppData\\Local\\Temp\\build-output-2026-05-22",
    "b'\\x9f\\x86\\xd0\\x81\\x88\\x4c\\x7d\\x65\\x9a\\x2f\\xea\\xa0\\xc5\\x5a\\xd0\\x15'",
    'printf("\\x1b[31mred\\x1b[0m and \\x1b[1mbold\\x1b[0m\\n");',
    "Caf&#233; cr&#232;me &amp; cr&#234;pes, Z&#252;rich &#8212; see you there",
    "commit 3f5e2a9c1b7d4e6f8a0b2c4d6e8f0a1b3c5d7e9f · sha256 "
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
]


# Octal escapes, as C, bash's $'…', printf and echo -e write them: three digits (`\101`), or a
# zero and three (`\0101`); bytes in a row as UTF-8. One or two digits after a backslash are a
# regex backreference or a path, never decoded.
O_AWS = escaped(AWS, "\\{:03o}")
O0_GH = escaped(GH, "\\0{:03o}")
O_SK = escaped(SK_ANT, "\\{:03o}")
O_CYR = "".join(f"\\{b:03o}" for b in "АКІА".encode())

DISGUISES_OCTAL = [
    ("an aws key as octal escapes", "export KEY=$'" + O_AWS + "'", O_AWS, "aws access key"),
    ("a github token as \\0 octal escapes", "echo -e '" + O0_GH + "' > ~/.token", O0_GH, "github token"),
    ("an anthropic key as octal escapes in printf", 'printf "' + O_SK + '"', O_SK, "anthropic key"),
    ("an aws key partly in octal", "id AKIA\\121" + AWS[5:] + " end", "AKIA\\121" + AWS[5:], "aws access key"),
    ("cyrillic look-alikes as octal utf-8 bytes", 's="' + O_CYR + AWS[4:] + '"', O_CYR + AWS[4:], "aws access key"),
]

ORDINARY_OCTAL = [
    "C:\\1\\2\\3 and C:\\10\\20\\30\\40 are the scratch folders",
    "sed -E 's/([0-9]{4})-([0-9]{2})-([0-9]{2})/\\3.\\2.\\1/' dates.txt",
    "the regex (\\w+)\\s+\\1\\b finds doubled words; (a)(b)(c)\\3\\2\\1 mirrors them",
    "\\\\fileserver\\share\\2026\\101\\115\\102\\117\\119\\200\\archive",
    "printf '\\110\\145\\154\\154\\157\\054\\040\\167\\157\\162\\154\\144\\041\\012'",
    "echo -e '\\0110\\0145\\0154\\0154\\0157 \\0167\\0157\\0162\\0154\\0144'",
]


@pytest.mark.parametrize("name, text, secret, family", DISGUISES_WHOLE + DISGUISES_OCTAL,
                         ids=[d[0] for d in DISGUISES_WHOLE + DISGUISES_OCTAL])
def test_a_key_with_no_ascii_letter_left_or_written_as_escapes_is_found_and_redacted_whole(name, text, secret, family):
    assert_found_and_redacted_whole(name, text, secret, family)


@pytest.mark.parametrize("text", ORDINARY_WHOLE + ORDINARY_OCTAL)
def test_prose_escaped_accents_paths_backreferences_and_byte_strings_are_not_secrets(text):
    assert detect_secrets(text) == []
    assert redact_secrets(text) == text
