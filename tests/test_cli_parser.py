"""The command line builds only the subcommand argv names (a fresh `dreamdeck recall` paid for
32 subparsers): every verb's help, usage and errors are the same as with every subparser built,
and `dreamdeck --help` still lists every verb."""
from __future__ import annotations

import pytest

from dreamdeck.cli.main import build_parser, main

WHOLE = build_parser()
VERBS = WHOLE.commands


def outcome(parser, argv: list[str], capsys) -> tuple[object, str, str]:
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(argv)
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def test_the_parser_knows_every_verb_whether_built_whole_or_for_one():
    assert len(VERBS) == 32 and "recall" in VERBS and "inject" in VERBS
    assert build_parser(only="recall").commands == VERBS
    assert build_parser(only="").commands == VERBS


@pytest.mark.parametrize("verb", VERBS)
def test_a_verbs_help_is_the_same_when_only_it_is_built(verb, capsys):
    whole = outcome(WHOLE, [verb, "--help"], capsys)
    assert outcome(build_parser(only=verb), [verb, "--help"], capsys) == whole
    assert whole[0] == 0 and f"usage: dreamdeck {verb}" in whole[1]


@pytest.mark.parametrize("argv", [["recall", "--budget"], ["recall", "tea", "--no-such-flag"], ["recall", "--save", "--saved"],
                                  ["inject", "--origin"], ["remember", "text"], ["dreams", "--limit", "-1"],
                                  ["log", "--limit", "zero"], ["dream", "--dreamer", "nobody"], ["show"]])
def test_a_verbs_usage_errors_are_the_same_when_only_it_is_built(argv, capsys):
    whole = outcome(WHOLE, argv, capsys)
    assert outcome(build_parser(only=argv[0]), argv, capsys) == whole
    assert whole[0] == 2 and whole[2].startswith("dreamdeck")


def test_dreamdeck_help_lists_every_verb(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    listing = capsys.readouterr().out
    assert all(f"    {verb} " in listing or f"    {verb}\n" in listing for verb in VERBS)


def test_a_mistyped_verb_is_still_named_as_one(capsys):
    assert main(["recal"]) == 2
    assert "did you mean `recall`?" in capsys.readouterr().err
