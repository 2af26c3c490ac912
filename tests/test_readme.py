"""The README's examples run: `$ meldcam ...` console blocks and Python doctests."""

from __future__ import annotations

import doctest
import re
import shlex
from pathlib import Path

import pytest

from web.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def console_examples() -> list[tuple[str, str]]:
    """(command, expected output) for every `$ meldcam` line of a console block."""
    examples = []
    for block in re.findall(r"```console\n(.*?)```", README, flags=re.S):
        command, output = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    examples.append((command, "\n".join(output)))
                command, output = line[2:], []
            else:
                output.append(line)
        if command is not None:
            examples.append((command, "\n".join(output)))
    return examples


EXAMPLES = console_examples()


def test_readme_has_console_examples() -> None:
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_readme_console_example(
    command: str, expected: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    argv = shlex.split(command)
    assert argv[0] == "meldcam"
    assert main(argv[1:]) == 0
    assert capsys.readouterr().out.rstrip("\n") == expected


def test_readme_python_examples() -> None:
    result = doctest.testfile(str(ROOT / "README.md"), module_relative=False)
    assert result.attempted >= 5 and result.failed == 0


def test_readme_round_example_matches_the_file() -> None:
    import json

    shown = re.search(r"```json\n(.*?)```", README, flags=re.S)
    assert shown is not None
    assert json.loads(shown.group(1)) == json.loads((ROOT / "docs/examples/round.json").read_text())
