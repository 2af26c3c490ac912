"""The ``meldcam`` command.

Each subcommand parses its arguments, calls the rules core (or vision, the
scene generator, the server), and prints. Exit status: 0 for a verdict (valid
or not), 2 for input that cannot be read, with the reason on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from scorer import (
    PRESETS,
    MeldcamError,
    PieceKind,
    Round,
    Rules,
    add_to_meld,
    parse_piece,
    score_round,
    validate_meld,
)
from scorer.pieces import Tile

EXIT_BAD_INPUT = 2


class BadInput(Exception):
    """Input the command cannot use: reported on stderr with exit status 2."""


def _fail(message: str) -> NoReturn:
    raise BadInput(message)


def _load_rules(spec: str | None, codes: Sequence[str]) -> Rules:
    """A preset name, a JSON file of table rules, or the default for the pieces given."""
    if spec is None:
        tiles = any(isinstance(_safe_parse(code), Tile) for code in codes)
        return Rules.default(PieceKind.TILES if tiles else PieceKind.CARDS)
    if spec.endswith(".json") or Path(spec).is_file():
        return Rules.from_json(_read_json(spec))
    return Rules.preset(spec)


def _safe_parse(code: str) -> object:
    try:
        return parse_piece(code)
    except MeldcamError:
        return None


def _read_json(path: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as error:
        _fail(f"cannot read {path}: {error.strerror or error}")
    except UnicodeDecodeError:
        _fail(f"{path} is not UTF-8 text")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        _fail(f"{path} is not valid JSON: {error.msg} at line {error.lineno} column {error.colno}")


def _print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False))


# ------------------------------------------------------------------------------ check


def _split_codes(raw: Sequence[str]) -> list[str]:
    return [code for chunk in raw for code in chunk.replace(",", " ").split()]


def cmd_check(args: argparse.Namespace) -> int:
    codes = _split_codes(args.codes)
    if not codes:
        _fail("no pieces given: name the meld's pieces, e.g. meldcam check 7H 8H 9H")
    rules = _load_rules(args.rules, codes)
    if args.add is not None:
        result = add_to_meld(codes, args.add, rules, ordered=args.ordered)
        if args.json:
            _print_json(result.to_json())
        else:
            verb = "yes" if result.allowed else "no"
            print(f"{verb}: {result.reason}")
            if result.allowed:
                print(f"the meld becomes: {result.meld_text}")
        return 0
    verdict = validate_meld(codes, rules, ordered=args.ordered)
    if args.json:
        _print_json(verdict.to_json())
    else:
        print(verdict.explain())
    return 0


# ------------------------------------------------------------------------------ score


def cmd_score(args: argparse.Namespace) -> int:
    sheet = score_round(Round.from_json(_read_json(args.round)))
    if args.json:
        _print_json(sheet.to_json())
        return 0
    if sheet.void:
        print("void hand: the stock ran out and nobody has a burraco; nobody scores")
    for side in sheet.sides:
        print(f"{side.name}: {side.total}")
        for line in side.lines:
            pieces = " ".join(map(str, line.pieces))
            print(f"  {line.points:>+6}  {line.text}" + (f"  [{pieces}]" if pieces else ""))
    for problem in sheet.problems:
        print(f"problem: {problem.message}")
    return 0


# ------------------------------------------------------------------------------ rules


def cmd_rules(args: argparse.Namespace) -> int:
    if args.preset is None:
        if args.json:
            _print_json({name: rules.to_json() for name, rules in PRESETS.items()})
            return 0
        for name, rules in PRESETS.items():
            players = "/".join(map(str, rules.players))
            end = (
                f"target {rules.target}"
                if rules.target
                else (f"{rules.rounds} games" if rules.rounds else "target set by players")
            )
            print(
                f"{name:<14} {rules.pieces.value:<5}  {rules.jokers} jokers  "
                f"{players} players  {end}"
            )
        return 0
    rules = _load_rules(args.preset, [])
    if args.json:
        _print_json(rules.to_json())
    else:
        print(rules.describe())
    return 0


# ------------------------------------------------------------------------------ serve


def _lan_addresses() -> list[str]:
    """This machine's IPv4 addresses a phone could reach, the default route's first.

    Three sources, as each misses some machines: the address the kernel would send from
    towards a private network (a UDP socket is connected, no packet is sent), every network
    interface's address (Linux), and the host name's (which Debian maps to 127.0.1.1).
    Loopback and link-local addresses are left out.
    """
    found: list[str] = []
    for address in (*_routed_address(), *_interface_addresses(), *_hostname_addresses()):
        if not address.startswith(("127.", "169.254.", "0.")) and address not in found:
            found.append(address)
    return found


def _routed_address() -> list[str]:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.254.254.254", 9))
            return [str(s.getsockname()[0])]
        except OSError:  # no route there
            return []


def _interface_addresses() -> list[str]:
    import socket
    import struct

    try:
        import fcntl
    except ImportError:  # not a Unix
        return []

    siocgifaddr = 0x8915  # Linux ioctl: an interface's IPv4 address
    found = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        return []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for name in names:
            request = struct.pack("256s", name.encode()[:15])
            try:
                reply = fcntl.ioctl(s.fileno(), siocgifaddr, request)
            except OSError:  # no IPv4 address on it
                continue
            found.append(socket.inet_ntoa(reply[20:24]))
    return found


def _hostname_addresses() -> list[str]:
    import socket

    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return []
    return [str(info[4][0]) for info in infos]


def cmd_serve(args: argparse.Namespace) -> int:
    import segno
    from waitress import serve

    from web import access
    from web.app import create_app

    instance = Path(args.instance).resolve() if args.instance else None
    app = create_app(instance=instance)
    if args.access_code is not None:
        try:
            access.save(Path(app.instance_path), args.access_code, read_open=not args.closed)
        except ValueError as error:
            _fail(str(error))
        print(
            "the access code is set: changes need it (reading stays open)"
            if not args.closed
            else "the access code is set: reading and changes need it"
        )
    hosts = _lan_addresses() if args.host in ("0.0.0.0", "") else [args.host]
    urls = [f"http://{host}:{args.port}/" for host in hosts] or [f"http://localhost:{args.port}/"]
    print(f"meldcam is serving {app.instance_path} on {args.host}:{args.port}")
    for url in urls:
        print(f"  open {url} on a phone on the same network")
    if not args.no_qr:
        segno.make(urls[0], error="m").terminal(compact=True)
    sys.stdout.flush()
    serve(app, host=args.host, port=args.port, threads=args.threads, ident="meldcam")
    return 0


# ------------------------------------------------------------------------ backup


def _instance(args: argparse.Namespace) -> Path:
    from web.app import default_instance

    return Path(args.instance).resolve() if args.instance else default_instance()


def cmd_backup(args: argparse.Namespace) -> int:
    from web.backup import BackupError, backup

    try:
        games = backup(_instance(args), Path(args.file))
    except (BackupError, OSError) as error:
        _fail(str(error))
    print(f"{games} game(s) saved to {args.file}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from web.backup import BackupError, restore

    try:
        games = restore(_instance(args), Path(args.file))
    except (BackupError, OSError) as error:
        _fail(str(error))
    print(f"{games} game(s) restored from {args.file}")
    return 0


# ------------------------------------------------------------------------------ main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="meldcam",
        description="Recognise, validate and score the melds of Burraco, Burako and tile Rummy.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    check = sub.add_parser(
        "check",
        help="verdict on one meld",
        description="The verdict on one meld, with every problem and what each wild stands for.",
    )
    check.add_argument("codes", nargs="+", metavar="CODE", help="pieces: 7H 10S AD JK or K7 R13")
    check.add_argument(
        "--rules",
        metavar="PRESET",
        help=f"a preset ({', '.join(PRESETS)}) or a rules JSON file; "
        "default burraco-fibur for cards, burako-003 for tiles",
    )
    check.add_argument(
        "--ordered", action="store_true", help="read the pieces in the order given (as laid out)"
    )
    check.add_argument(
        "--add", metavar="CODE", help="ask whether this piece can be added to the meld"
    )
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.set_defaults(func=cmd_check)

    score = sub.add_parser(
        "score",
        help="score a round",
        description="Score a round described in JSON (see the README); '-' reads stdin.",
    )
    score.add_argument("round", metavar="ROUND.json")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.set_defaults(func=cmd_score)

    rules = sub.add_parser(
        "rules", help="list the presets or show one", description="List presets or show one."
    )
    rules.add_argument("preset", nargs="?", metavar="PRESET", help="a preset or rules JSON file")
    rules.add_argument("--json", action="store_true", help="print JSON")
    rules.set_defaults(func=cmd_rules)

    serve = sub.add_parser(
        "serve",
        help="serve the phone page",
        description="Serve the phone page with a production WSGI server (waitress).",
    )
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--instance", metavar="DIR", help="folder of the database and photos")
    serve.add_argument("--threads", type=int, default=8, help="worker threads (default 8)")
    serve.add_argument("--no-qr", action="store_true", help="do not print the QR code")
    serve.add_argument(
        "--access-code", metavar="CODE", help="set the household access code (stored hashed)"
    )
    serve.add_argument(
        "--closed", action="store_true", help="with --access-code: reading needs the code too"
    )
    serve.set_defaults(func=cmd_serve)

    for name, func, text in (
        ("backup", cmd_backup, "save every game (database and photos) to a zip"),
        ("restore", cmd_restore, "replace every game with those of a backup zip"),
    ):
        command = sub.add_parser(name, help=text, description=text)
        command.add_argument("file", metavar="FILE.zip")
        command.add_argument("--instance", metavar="DIR", help="folder of the database and photos")
        command.set_defaults(func=func)

    for register in _extensions():
        register(sub)
    return parser


def _extensions() -> list[Callable[[Any], None]]:
    """Subcommands of the other packages: every ``add_*_parser`` of their ``cli`` modules.

    Each package's ``cli`` module must stay light to import (heavy modules load in the
    handlers), so that ``meldcam check`` starts fast.
    """
    found: list[Callable[[Any], None]] = []
    for package in ("vision", "datasets"):
        try:
            module = importlib.import_module(f"{package}.cli")
        except ModuleNotFoundError as error:
            if error.name and (error.name == package or error.name.startswith(f"{package}.")):
                continue  # that package has no subcommands (yet)
            raise
        found.extend(
            getattr(module, name)
            for name in sorted(vars(module))
            if name.startswith("add_") and name.endswith("_parser")
        )
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except (BadInput, MeldcamError) as error:
        message = error.args[0] if isinstance(error, BadInput) else str(error)
        print(f"meldcam {args.command}: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
