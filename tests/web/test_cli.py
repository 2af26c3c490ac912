"""The CLI contract of `meldcam check`, `meldcam score` and `meldcam rules`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from web.cli import main

MELDCAM = shutil.which("meldcam", path=str(Path(sys.executable).parent))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "check", "--rules", "burraco-fibur", "--json", "7H", "8H", "2S")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["valid"] is True and data["kind"] == "run" and data["burraco"] is None
    assert data["points"] == 35 and data["bonus"] == 0 and data["problems"] == []
    assert data["reading"][2] == {"piece": "2S", "as": "9H", "wild": True}
    assert out.count("\n") == 1  # one JSON object on one line


def test_check_invalid_meld_is_a_verdict_with_exit_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--json", "JK", "7H", "8H", "2S")
    data = json.loads(out)
    assert code == 0 and data["valid"] is False and data["kind"] is None
    assert data["problems"][0] == {
        "code": "too-many-wilds",
        "message": "two wild cards: JK and 2S; a meld holds at most one",
    }


def test_check_human_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "--rules", "burako-003", "r12", "r13", "r1")
    assert code == 0 and out.strip() == "valid run: R12 R13 R1 (35 points)"


def test_check_default_rules_follow_the_pieces(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "check", "--json", "R5", "R6", "JK")
    assert json.loads(out)["points"] == 5 + 5 + 50  # Burako joker: burako-003 is the tile default


def test_check_ordered_reads_the_physical_order(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(
        capsys,
        "check",
        "--rules",
        "burraco-000",
        "--ordered",
        "--json",
        "2H",
        "4H",
        "5H",
        "6H",
        "2H",
    )
    assert json.loads(out)["valid"] is False
    _, out, _ = run(
        capsys, "check", "--rules", "burraco-000", "--json", "2H", "4H", "5H", "6H", "2H"
    )
    assert json.loads(out)["valid"] is True


def test_check_add(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "check", "--rules", "burraco-002", "--add", "5H", "3H", "4H", "JK", "6H", "7H"
    )
    assert code == 0
    assert out.splitlines() == [
        "yes: 5H joins the run; JK moves and now stands for 2H",
        "the meld becomes: JK 3H 4H 5H 6H 7H",
    ]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "7X", "8H"], "'7X' is not a piece (unknown suit 'X')"),
        (["check", "--rules", "canasta", "7H"], "unknown rules preset 'canasta'"),
        (["check", "--rules", "burraco-fibur", "R5", "R6", "R7"], "'R5' is not a card"),
        (["score", "/nonexistent/round.json"], "cannot read /nonexistent/round.json"),
        (["rules", "canasta"], "unknown rules preset 'canasta'"),
    ],
)
def test_bad_input_exits_2_with_one_line_on_stderr(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


ROUND: dict[str, Any] = {
    "rules": "burraco-fibur",
    "sides": [
        {
            "name": "Ada",
            "melds": [["7H", "8H", "9H", "10H", "JH", "QH", "KH"]],
            "hand": [],
            "took_pot": True,
            "closed": True,
        },
        {
            "name": "Bo",
            "melds": [["5S", "5D", "5C"]],
            "hand": ["KD", "JK"],
            "took_pot": False,
            "closed": False,
        },
    ],
}


def test_score_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "round.json"
    path.write_text(json.dumps(ROUND))
    code, out, _ = run(capsys, "score", "--json", str(path))
    data = json.loads(out)
    assert code == 0 and data["problems"] == []
    assert [(s["name"], s["total"]) for s in data["sides"]] == [("Ada", 365), ("Bo", -125)]
    assert data["sides"][1]["lines"][1] == {
        "reason": "hand",
        "points": -40,
        "pieces": ["KD", "JK"],
        "text": "hand",
    }


def test_score_human(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "round.json"
    path.write_text(json.dumps(ROUND))
    _, out, _ = run(capsys, "score", str(path))
    assert out.splitlines()[0] == "Ada: 365" and "Bo: -125" in out
    assert "   -100  pot never taken" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "{not json",
            "is not valid JSON: Expecting property name enclosed in double quotes at line 1",
        ),
        (
            '{"rules": "burraco-fibur", "sides": [{"name": "A", "hand": ["ZZ"]}]}',
            "sides[0].hand[0]: 'ZZ' is not a piece",
        ),
        ('{"rules": "burraco-fibur"}', "'sides' must be a non-empty list"),
    ],
)
def test_score_bad_round_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "round.json"
    path.write_text(text)
    code, out, err = run(capsys, "score", str(path))
    assert code == 2 and out == "" and message in err


def test_rules_list_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "rules")
    assert [line.split()[0] for line in out.splitlines()] == [
        "burraco-fibur",
        "burraco-000",
        "burraco-002",
        "burako-003",
        "rummy-003",
    ]
    _, out, _ = run(capsys, "rules", "burako-003", "--json")
    data = json.loads(out)
    assert data["name"] == "burako-003" and data["value_joker"] == 50 and data["target"] == 3000


def test_rules_file_can_be_given_to_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.json"
    path.write_text(json.dumps({"preset": "burraco-fibur", "value_joker": 25}))
    _, out, _ = run(capsys, "check", "--rules", str(path), "--json", "7H", "8H", "JK")
    assert json.loads(out)["points"] == 40


@pytest.mark.skipif(MELDCAM is None, reason="the meldcam script is installed by `make`")
def test_installed_script_and_stdin() -> None:
    assert MELDCAM is not None
    done = subprocess.run(
        [MELDCAM, "score", "--json", "-"],
        input=json.dumps(ROUND),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and json.loads(done.stdout)["sides"][0]["total"] == 365
    bad = subprocess.run([MELDCAM, "check", "7X"], capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("meldcam check: '7X' is not a piece")
    usage = subprocess.run([MELDCAM, "check"], capture_output=True, text=True, check=False)
    assert usage.returncode == 2 and "the following arguments are required: CODE" in usage.stderr


def _kernel_local_addresses() -> set[str]:
    """The machine's own IPv4 addresses as the kernel's routing table lists them (Linux)."""
    lines = Path("/proc/net/fib_trie").read_text().splitlines()
    return {
        lines[k - 1].split()[-1]
        for k, line in enumerate(lines)
        if line.strip() == "/32 host LOCAL" and k > 0
    }


def test_the_phone_address_is_a_lan_address_of_the_machine() -> None:
    from web.cli import _lan_addresses

    lan = {a for a in _kernel_local_addresses() if not a.startswith(("127.", "169.254."))}
    found = _lan_addresses()
    # Debian maps the host name to 127.0.1.1: that alone found nothing on such a machine
    assert set(found) <= lan and (found or not lan)
    assert len(found) == len(set(found))


def test_the_default_route_address_comes_first_and_loopback_never(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from web import cli

    monkeypatch.setattr(cli, "_routed_address", lambda: ["192.168.1.20"])
    interfaces = ["127.0.0.1", "172.17.0.1", "192.168.1.20"]
    monkeypatch.setattr(cli, "_interface_addresses", lambda: interfaces)
    monkeypatch.setattr(cli, "_hostname_addresses", lambda: ["127.0.1.1", "169.254.3.3"])
    assert cli._lan_addresses() == ["192.168.1.20", "172.17.0.1"]


def test_serve_on_all_interfaces_prints_a_url_a_phone_can_open(tmp_path: Path) -> None:
    import socket
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    script = Path(sys.executable).parent / "meldcam"
    args = [str(script), "serve", "--port", str(port), "--instance", str(tmp_path), "--no-qr"]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        urls = []
        for line in process.stdout:
            if line.strip().startswith("open http://"):
                urls.append(line.split()[1])
                break
        assert urls, "no URL printed"
        host = urls[0].split("//")[1].split(":")[0]
        lan = {a for a in _kernel_local_addresses() if not a.startswith("127.")}
        if lan:
            assert host in lan
        for _ in range(300):  # a minute: the server prints its URL before it listens
            try:
                with urllib.request.urlopen(urls[0], timeout=2) as response:
                    assert response.status == 200
                    break
            except OSError:
                time.sleep(0.2)
        else:
            pytest.fail(f"{urls[0]} did not answer")
    finally:
        process.terminate()
        process.wait(timeout=10)
