"""The scanner end to end with the committed ONNX models, on real photos; the JSON contract."""

from __future__ import annotations

import io
import itertools
import json
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from vision.classes import Face, PieceKind
from vision.detections import Detections
from vision.errors import UnreadablePhotoError
from vision.result import ScanResult
from vision.scanner import Scanner
from web.cli import main

MODELS = Path(__file__).resolve().parents[2] / "models"
# a held-out real tile photo (validation side of the split by source photo)
TILE_PHOTO = "rummikub-tiles/images/rummy-16_jpeg.rf.6bdaf799147636e1bcce30f01cf63c4a.jpg"


def _labels(real: Path, photo: str) -> Counter[str]:
    label = real / (photo.replace("/images/", "/labels/").rsplit(".", 1)[0] + ".txt")
    rows = label.read_text().split("\n")
    from datasets.realdata import tile_faces

    faces = tile_faces(real / "rummikub-tiles" / "class_map.csv")
    return Counter(faces[int(r.split()[0])].code for r in rows if r.strip())


def test_the_real_model_reads_most_tiles_of_a_held_out_real_photo(
    scanner: Scanner, real: Path
) -> None:
    truth = _labels(real, TILE_PHOTO)
    result = scanner.scan(real / TILE_PHOTO, "tiles")
    found = Counter(p.code for p in result.pieces)
    right = sum((truth & found).values())
    print(f"{right} right of {sum(truth.values())} labelled, {sum(found.values())} found")
    assert result.kind == "tiles"
    assert right / sum(truth.values()) >= 0.8, (truth, found)
    assert right / max(1, sum(found.values())) >= 0.8, (truth, found)


def _fans(real: Path) -> list[tuple[Path, Counter[str]]]:
    """Each bidly fan photo with its labelled cards, each card once."""
    from datasets.realdata import fan_cards

    return fan_cards(real / "card-fans")


def _read_fans(
    scanner: Scanner,
    real: Path,
    turns: int = 0,
    change: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[int, int, int, float]:
    """(right, false, missed, F1) of the cards read on both fans, each photo turned ``turns``
    quarter turns counter-clockwise, then changed by ``change`` (its pixels in, pixels out)."""
    from vision.photo import load_photo

    tp = fp = fn = 0
    for image, truth in _fans(real):
        photo: Path | np.ndarray = image
        if turns or change is not None:
            pixels = np.ascontiguousarray(np.rot90(load_photo(image), turns))
            photo = pixels if change is None else change(pixels)
        found = Counter(p.code for p in scanner.scan(photo, "cards").pieces)
        right = sum((truth & found).values())
        tp, fp, fn = tp + right, fp + found.total() - right, fn + truth.total() - right
    f1 = 2 * tp / (2 * tp + fp + fn)
    print(f"card fans turned {turns}: {tp} right, {fp} false, {fn} missed, F1 {f1:.3f}")
    return tp, fp, fn, f1


def test_the_real_model_reads_the_real_card_fans(scanner: Scanner, real: Path) -> None:
    """Both bidly fans (never trained on), scored as ``meldcam eval`` scores them: each card
    once (a card labelled at both corners is one card), multiset match per photo. Measured F1
    0.954 with session 7's models, 0.936 with session 6's (0.912 with session 5's, which this
    fails); this guards the gain with a few cards of slack, above the bar of 0.90."""
    tp, fp, fn, f1 = _read_fans(scanner, real)
    assert f1 >= 0.92, (tp, fp, fn)


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_the_real_card_fans_seen_from_the_other_seats_still_meet_the_card_bar(
    scanner: Scanner, real: Path, turns: int
) -> None:
    """The same fans turned a quarter, a half, three quarters (counter-clockwise): the table
    photographed from another seat. Session 10 measured F1 0.931, 0.929 and 0.936 (upright
    0.960): the detector is not indifferent to which way up it sees the cards, and this guards
    the bar of 0.90 from every side."""
    tp, fp, fn, f1 = _read_fans(scanner, real, turns)
    assert f1 >= 0.90, (tp, fp, fn)


def _dark(photo: np.ndarray) -> np.ndarray:
    """A photo the phone did not expose for: a fifth of its light, with the sensor's noise
    (`bench/conditions.py`'s dark)."""
    rng = np.random.default_rng(0)
    return np.clip(photo * 0.2 + rng.normal(0, 4, photo.shape), 0, 255).astype(np.uint8)


def test_the_real_card_fans_in_a_dark_room_still_meet_the_card_bar(
    scanner: Scanner, real: Path
) -> None:
    """Both fans with a fifth of their light: brightened before they are read, the detector
    reading them smoothed (``expose_white``, ``dark_blur``). Session 18 measured F1 0.960 here
    (0.971 in `bench/conditions.py`, other noise), and 0.065 read as they were (3 cards of 89):
    the bar would fall without the brightening. Session 25's detector (trained longer, on a
    GPU) reads them 0.966 brightened and 0.578 as they are (37 cards)."""
    unlit = Scanner.load(MODELS, expose_white=0)
    served, as_dark = (_read_fans(s, real, change=_dark) for s in (scanner, unlit))
    assert served[3] >= 0.90, served
    assert as_dark[3] < 0.75, as_dark  # dark enough that reading them as they are misses the bar


def _moved(photo: np.ndarray) -> np.ndarray:
    """A hand that moved: 1/150 of the photo's width of horizontal smear (8 px of a fan;
    `bench/conditions.py`'s motion)."""
    n = max(3, round(photo.shape[1] / 150))
    return cv2.filter2D(photo, -1, np.full((1, n), 1.0 / n, np.float32))


def test_the_real_card_fans_taken_by_a_moving_hand_are_read_with_the_smear_taken_out(
    scanner: Scanner, real: Path
) -> None:
    """Both fans smeared: each is reported shaken, and read again with the smear its pieces'
    edges show taken out (``deblur_nsr``). Session 32 measured 83 cards right, 2 false (F1
    0.954) so, and 79 right, 5 false (0.913) read as smeared; session 53's classifier (an
    average of fine-tunes, steadier under smear) 82 right, 2 false (0.948) against 82 and 4
    (0.937), session 55's blank jokers 83 right: taking the smear out now saves false cards,
    not right ones, and must still do one or the other without losing any."""
    from vision.photo import load_photo

    for image, _ in _fans(real):
        assert scanner.scan(_moved(load_photo(image)), "cards").shaken
    unmended = Scanner.load(MODELS, deblur_nsr=0)
    served, smeared = (_read_fans(s, real, change=_moved) for s in (scanner, unmended))
    assert served[0] >= 82 and served[1] <= 3, served
    assert served[0] >= smeared[0] and served[1] <= smeared[1], (served, smeared)
    assert served[3] > smeared[3], (served, smeared)


def test_a_black_and_white_photo_is_reported_and_its_suits_left_uncertain(
    scanner: Scanner, real: Path
) -> None:
    """The real fans in grey read every red card as a black one (session 33: 50 right, 37
    false): the scan says so (``colourless``) and marks every piece but a joker uncertain, where
    the fans as taken are not colourless. A joker is uncertain as in any photo, where read less
    surely than ``SURE``: the 7-bit copy of session 53's net, on a CPU without VNNI, reads a weak
    false joker in one grey fan (session 54), which is rightly marked."""
    from vision.photo import load_photo
    from vision.repair import SURE

    for image, _ in _fans(real):
        photo = load_photo(image)
        taken = scanner.scan(photo, "cards")
        assert not taken.colourless and taken.colour > 40
        grey = cv2.cvtColor(cv2.cvtColor(photo, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2RGB)
        result = scanner.scan(grey, "cards")
        assert result.colourless and result.to_json()["colourless"] is True
        assert result.to_json()["colour"] == 0.0 and taken.to_json()["colour"] > 40
        assert len(result.pieces) > 30
        assert {i for i, p in enumerate(result.pieces) if p.code != "JK"} <= set(result.uncertain)
        assert all(result.pieces[i].code != "JK" or result.pieces[i].confidence < SURE
                   for i in result.uncertain)  # fmt: skip


# a held-out real photo of a whole tile set laid out in rows (54 tiles, about 40 px each)
GRID_PHOTO = "rummikub-tiles/images/rummy-7_jpeg.rf.cdf64da895b682c459eb0aaea3d76178.jpg"


def test_a_grainy_real_tile_photo_is_read_whole(scanner: Scanner, real: Path) -> None:
    """The photo with the sensor noise of a dim room the phone exposed for (grey noise of sigma 14
    at its 640 px; it measures 8.4, as taken 0.5, where the floor is 5): the detector reads it
    smoothed (``noise_floor``). Session 32 measured 54 of its 54 tiles read right so, 38 read
    sharp (none false either way)."""
    from vision.light import NOISE_FLOOR, noise_level
    from vision.photo import load_photo

    truth = _labels(real, GRID_PHOTO)
    photo = load_photo(real / GRID_PHOTO)
    grainy = np.clip(photo + np.random.default_rng(0).normal(0, 14, photo.shape), 0, 255)
    grainy = grainy.astype(np.uint8)
    assert noise_level(photo, 640) < NOISE_FLOOR < noise_level(grainy, 640)
    assert scanner.config.noise_floor == NOISE_FLOOR  # served as measured
    counts = []
    for reader in (scanner, Scanner.load(MODELS, noise_floor=0)):
        found = Counter(p.code for p in reader.scan(grainy, "tiles").pieces)
        right = sum((truth & found).values())
        counts.append((right, found.total() - right))
    (right, false), (sharp_right, _) = counts
    assert right >= truth.total() - 2 and false <= 1, counts
    assert sharp_right <= truth.total() - 8, counts  # grainy enough that reading it sharp loses


def test_the_real_card_fans_half_in_a_shadow_are_read_as_in_full_light(
    scanner: Scanner, real: Path
) -> None:
    """Both fans with a player's shadow over their right half (0.4 of the light, soft edge;
    `bench/conditions.py`'s shadow): the places in shadow are brightened before the photo is
    read (``shade_reach``). Session 18 measured 84 cards right (F1 0.971; 86 as taken) and 80
    (0.941) with the shadow left as it is. Session 25's detector reads 85 either way (as taken
    85 too): it no longer needs the step here, and the step costs it nothing."""

    def shadowed(photo: np.ndarray) -> np.ndarray:
        w = photo.shape[1]
        ramp = np.clip((np.arange(w, dtype=np.float32) - 0.4 * w) / (0.2 * w), 0, 1)
        return np.clip(photo * (1.0 - 0.6 * ramp)[None, :, None], 0, 255).astype(np.uint8)

    unshaded = Scanner.load(MODELS, shade_reach=0)
    served, as_shaded = (_read_fans(s, real, change=shadowed) for s in (scanner, unshaded))
    assert served[0] >= 83, served
    assert served[0] >= as_shaded[0], (served, as_shaded)


def test_a_hand_that_moved_is_reported_and_a_still_one_is_not(
    scanner: Scanner, real: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both fans smeared sideways by 1/150 of their width (`bench/conditions.py`'s motion
    blur: 8 px): reported shaken, so the player can take the photo again; as taken, never.
    Session 20 measured shake 1.08 and 1.10 as taken, 2.23 and 2.83 smeared."""
    from vision.photo import load_photo

    kernel = np.full((1, 8), 1 / 8, np.float32)
    for image, _truth in _fans(real):
        pixels = load_photo(image)
        still = scanner.scan(pixels, "cards")
        moved = scanner.scan(cv2.filter2D(pixels, -1, kernel), "cards")
        assert not still.shaken and still.shake < 1.3, still.shake
        assert moved.shaken and moved.shake > 1.9, moved.shake
        assert moved.to_json()["shaken"] is True and still.to_json()["shaken"] is False
    assert main(["scan", str(image)]) == 0
    assert "shaken" not in capsys.readouterr().out  # the text report says it only when it is


def test_a_table_from_afar_is_read_again_enlarged_and_more_cards_are_read(
    scanner: Scanner, real: Path
) -> None:
    """Each real fan tiled 3x3 (median corner index 10 px in the detector's 640 px input): read
    again enlarged (``small_px`` in ``scanner.json``) and the readings merged, far more cards are
    read right than by the first reading alone. Measured (session 9) on both fans: 559 of 801
    right against 430 without the second reading (F1 0.812 against 0.691). Nine copies of each
    card are more than two decks hold, so neither scanner counts copies."""
    from datasets.realdata import table_from_afar

    assert scanner.config.small_px > 0
    models = Path(__file__).resolve().parents[2] / "models"
    enlarged = Scanner.load(models, count_copies=False)
    plain = Scanner.load(models, count_copies=False, small_px=0)
    right = {"enlarged": 0, "plain": 0}
    for image, truth in _fans(real):
        data = table_from_afar(image, 3, (3000, 3000))
        table = Counter({code: 9 * count for code, count in truth.items()})
        for name, reader in (("enlarged", enlarged), ("plain", plain)):
            found = Counter(p.code for p in reader.scan(data, "cards").pieces)
            right[name] += sum((table & found).values())
    print(right)
    assert right["enlarged"] >= right["plain"] + 60, right


def test_a_table_from_afar_is_reported_afar_and_a_fan_as_taken_is_not(
    scanner: Scanner, real: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The player is asked to come closer where the cards are too small to read reliably
    (``vision.afar.AFAR``): each real fan as taken (median corner about 4 % of its long
    side, session 29) is not; tiled 3x3 into a 4000x3000 phone frame (1.1-1.4 %), it is.
    Tiled 2x2 (1.6-1.9 %, read at F1 0.955 against 0.874 for 3x3) it is not."""
    from datasets.realdata import table_from_afar

    copies = Scanner.load(MODELS, count_copies=False)  # n x n copies: more than two decks
    for image, _truth in _fans(real):
        near = scanner.scan(image, "cards")
        assert not near.afar and near.piece_size > 0.03, near.piece_size
        for n, expected in ((2, False), (3, True)):
            table = copies.scan(table_from_afar(image, n, (4000, 3000)), "cards")
            assert table.afar is expected, (image.name, n, table.piece_size)
            assert table.to_json()["afar"] is expected
            assert table.to_json()["piece_size"] == round(table.piece_size, 4)
    assert main(["scan", str(image)]) == 0
    assert "small" not in capsys.readouterr().out  # the text report says it only when it is
    table_path = tmp_path / "table.jpg"
    table_path.write_bytes(table_from_afar(image, 3, (4000, 3000)))
    assert main(["scan", str(table_path)]) == 0
    assert "the cards are small in this photo" in capsys.readouterr().out


def _shrunk(photo: Path, factor: float, out: Path) -> Path:
    """``photo`` shrunk by ``factor`` (each side), saved as a PNG at ``out``."""
    with Image.open(photo) as image:
        size = (round(image.width * factor), round(image.height * factor))
        image.convert("RGB").resize(size, Image.Resampling.LANCZOS).save(out)
    return out


def test_a_photo_with_too_few_pixels_for_its_pieces_says_so(
    scanner: Scanner, real: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The player is asked for the photo at its full size where its pieces measure under
    ``vision.afar.LOW_RES_PX`` pixels though they fill it (a thumbnail): each real fan shrunk
    from 1200 to 300 px (median corner about 12 px, read at F1 0.91 against 0.994 as taken,
    session 34, ``bench/resolution.py``) is reported, as taken (48 px) it is not; the real
    tiles shrunk so that their median tile measures about 10 px are reported too. Neither is
    taken from afar."""
    for image, _truth in _fans(real):
        taken = scanner.scan(image, "cards")
        assert not taken.low_resolution and taken.piece_px > 40, taken.piece_px
        small = scanner.scan(_shrunk(image, 0.25, tmp_path / "fan.png"), "cards")
        assert small.low_resolution and not small.afar, (small.piece_px, small.piece_size)
        line = small.to_json()
        assert line["low_resolution"] is True and line["piece_px"] == round(small.piece_px, 1)
        assert 10 < small.piece_px < 14 and len(small.pieces) >= 30  # what could be read is kept
    tiles = scanner.scan(real / TILE_PHOTO, "tiles")
    assert not tiles.low_resolution and tiles.to_json()["low_resolution"] is False
    small_tiles = _shrunk(real / TILE_PHOTO, 10 / tiles.piece_px, tmp_path / "tiles.png")
    assert scanner.scan(small_tiles, "tiles").low_resolution
    assert main(["scan", str(image)]) == 0
    assert "few pixels" not in capsys.readouterr().out  # the text report says it only when it is
    assert main(["scan", str(tmp_path / "fan.png")]) == 0
    assert "send the photo at its full size" in capsys.readouterr().out


def test_a_photo_too_small_to_hold_a_readable_piece_is_refused(
    scanner: Scanner, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A photo whose shorter side is under ``vision.afar.MIN_PHOTO_SIDE`` (the smallest piece
    read reliably) is refused with its size, not read as an empty table; one that side long is
    read."""
    from vision.afar import MIN_PHOTO_SIDE

    short = MIN_PHOTO_SIDE - 1
    for shape in ((short, 200, 3), (200, short, 3), (10, 10, 3)):
        with pytest.raises(UnreadablePhotoError, match="too small to read") as refused:
            scanner.scan(np.full(shape, 200, np.uint8))
        assert f"{shape[1]}x{shape[0]}" in str(refused.value)
    assert scanner.scan(np.full((MIN_PHOTO_SIDE, 200, 3), 200, np.uint8)).pieces == ()
    tiny = tmp_path / "tiny.png"
    Image.new("RGB", (10, 10), (200, 180, 150)).save(tiny)
    assert main(["scan", "--json", str(tiny)]) == 2
    line = json.loads(capsys.readouterr().out)
    assert "too small to read: 10x10 pixels" in line["error"] and "pieces" not in line


def test_a_fan_a_little_small_in_its_frame_is_read_again_enlarged_and_more_cards_are_read(
    scanner: Scanner, real: Path
) -> None:
    """Each real fan filling the height of a frame 1.05 and 1.15 times as wide (a phone photo;
    its corners ask for about 1.1-1.3 times enlargement), upright and turned half round: read again
    slightly enlarged, more cards are read right than by the first reading alone. Measured
    (session 15): 334 against 317 right of 356; before session 15 these frames were read again
    only where that enlarged them 1.2 times or more (``bench/framings.py``). Session 25's
    detector reads more of them the first time: 342 against 338."""
    from datasets.realdata import in_phone_frame

    plain = Scanner.load(Path(__file__).resolve().parents[2] / "models", small_px=0)
    right = {"enlarged": 0, "plain": 0}
    for image, truth in _fans(real):
        for aspect, turns in itertools.product((1.05, 1.15), (0, 2)):
            data = in_phone_frame(image, aspect, turns=turns)
            for name, reader in (("enlarged", scanner), ("plain", plain)):
                found = Counter(p.code for p in reader.scan(data, "cards").pieces)
                right[name] += sum((truth & found).values())
    print(right)
    assert right["enlarged"] > right["plain"], right


# held-out real photos of one tile each, which the detector's confidences alone (before
# session 5) took for card photos: they see more weak "card corners" than the one tile
ONE_TILE_PHOTOS = (
    "rummy4-32_jpeg.rf.0d0d7e9cc7bf00d97fb2f9aaee0b2fab.jpg",
    "rummy4-44_jpeg.rf.f93d3bd83647e21d418c2f35a2030c0d.jpg",
    "rummy4-59_jpeg.rf.23bb4a5cd5c3c2d85d3037d62db4fcd0.jpg",
    "rummy4-74_jpeg.rf.16de02ec06b725890ca2b195a16979fb.jpg",
)


@pytest.mark.parametrize("name", ONE_TILE_PHOTOS)
def test_auto_tells_a_photo_of_one_tile_from_cards(scanner: Scanner, real: Path, name: str) -> None:
    result = scanner.scan(real / "rummikub-tiles" / "images" / name, "auto")
    assert result.kind == "tiles"
    assert len(result.pieces) >= 1


# held-out close-ups of one joker tile (3 copies of one photo): too big for session 6's detector
# at 640 px, what it found there read as no piece; until session 6 they came out empty, as cards
CLOSE_UPS = (
    "rummy4-71_jpeg.rf.07b3764d5f9cccc75b518912686b5e00.jpg",
    "rummy4-71_jpeg.rf.80a39bc4788c134af6bd4c198ce31601.jpg",
    "rummy4-71_jpeg.rf.fff070ac286acfe024c0ac190902263f.jpg",
)


@pytest.mark.parametrize("name", CLOSE_UPS)
def test_a_close_up_of_one_tile_scans_as_that_tile(scanner: Scanner, real: Path, name: str) -> None:
    photo = f"rummikub-tiles/images/{name}"
    result = scanner.scan(real / photo, "auto")
    assert result.kind == "tiles"
    assert Counter(p.code for p in result.pieces) == _labels(real, photo)


@pytest.mark.parametrize("name", CLOSE_UPS)
def test_a_close_up_that_reads_empty_is_looked_at_again_fitted_small(
    scanner: Scanner, real: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the first look finds nothing that reads as a piece (as session 6's detector at 640 px; since
    # session 12's the detector finds the joker there itself, so the first look is made empty)
    from vision.detections import Detections
    from vision.detector import MIN_IMGSZ

    looked_at: list[int] = []
    detect_at = scanner.detector.detect_at

    def spy(image: np.ndarray, imgsz: int) -> Detections:
        looked_at.append(imgsz)
        return detect_at(image, imgsz)

    monkeypatch.setattr(scanner.detector, "detect", lambda image: Detections.empty())
    monkeypatch.setattr(scanner.detector, "detect_at", spy)
    photo = f"rummikub-tiles/images/{name}"
    result = scanner.scan(real / photo, "auto")
    assert looked_at == [MIN_IMGSZ]
    assert result.kind == "tiles"
    assert Counter(p.code for p in result.pieces) == _labels(real, photo)


def test_auto_tells_the_card_fans_from_tiles(scanner: Scanner, real: Path) -> None:
    for image in sorted((real / "card-fans" / "images").glob("*.jpg")):
        assert scanner.scan(image, "auto").kind == "cards", image.name


def test_scan_json_contract(real: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = str(real / TILE_PHOTO)
    code = main(["scan", "--json", "--kind", "tiles", photo, photo])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0 and len(lines) == 2
    for line in lines:
        assert line["path"] == photo
        assert (line["width"], line["height"]) == (640, 640)
        assert set(line) >= {"path", "width", "height", "pieces", "melds", "unassigned"}
        assert line["shaken"] is False and (line["shake"] is None or line["shake"] < 1.6)
        assert line["afar"] is False and line["piece_size"] > 0.1  # tiles are never afar
        assert line["colourless"] is False and line["colour"] > 40
        assert isinstance(line["timing_ms"], dict)
        n = len(line["pieces"])
        for piece in line["pieces"]:
            assert set(piece) == {"code", "box", "confidence"}
            x1, y1, x2, y2 = piece["box"]
            assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 640
            assert 0 <= piece["confidence"] <= 1
            Face.parse(piece["code"], PieceKind.TILE)  # a face of the project's notation
        used = [i for m in line["melds"] for i in m["pieces"]] + line["unassigned"]
        assert sorted(used) == list(range(n))  # every piece once: in a meld or unassigned
        for meld in line["melds"]:
            assert set(meld["verdict"]) >= {"valid", "kind", "points", "problems", "reading"}
            assert meld["facing"] in (None, "near", "left", "far", "right")


def test_an_unreadable_photo_gives_an_error_line_and_the_run_goes_on(
    real: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    missing = tmp_path / "missing.jpg"
    photo = str(real / TILE_PHOTO)
    code = main(["scan", "--json", str(broken), photo, str(missing)])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 2
    assert [line["path"] for line in lines] == [str(broken), photo, str(missing)]
    assert "error" in lines[0] and "error" in lines[2] and "error" not in lines[1]
    assert lines[1]["pieces"]


def test_the_api_refuses_broken_images_with_a_clear_error(scanner: Scanner) -> None:
    with pytest.raises(UnreadablePhotoError, match="not an image"):
        scanner.scan(b"GIF89a-nope")
    with pytest.raises(UnreadablePhotoError, match="empty"):
        scanner.scan(b"")
    with pytest.raises(ValueError):
        scanner.scan(np.zeros((4, 4, 3), np.uint8))


def test_exif_orientation_is_applied(scanner: Scanner, real: Path) -> None:
    upright = Image.open(real / TILE_PHOTO).convert("RGB").crop((0, 80, 640, 560))  # 640x480
    plain, turned = io.BytesIO(), io.BytesIO()
    upright.save(plain, "JPEG", quality=95)
    # stored turned a quarter; EXIF orientation 6 tells viewers to turn it back upright
    exif = Image.Exif()
    exif[0x0112] = 6
    upright.transpose(Image.Transpose.ROTATE_90).save(turned, "JPEG", quality=95, exif=exif)
    a = scanner.scan(plain.getvalue(), "tiles")
    b = scanner.scan(turned.getvalue(), "tiles")
    assert (b.width, b.height) == (640, 480) == (a.width, a.height)
    assert len(a.pieces) > 3
    centres_a = np.array([((p.box[0] + p.box[2]) / 2, (p.box[1] + p.box[3]) / 2) for p in a.pieces])
    centres_b = np.array([((p.box[0] + p.box[2]) / 2, (p.box[1] + p.box[3]) / 2) for p in b.pieces])
    assert len(centres_a) == len(centres_b)
    # each piece of the upright photo has its own counterpart within 4 px in the turned one
    dist = np.linalg.norm(centres_a[:, None] - centres_b[None], axis=2)
    nearest = dist.argmin(axis=1)
    assert sorted(nearest.tolist()) == list(range(len(centres_b)))
    assert dist.min(axis=1).max() < 4


def test_weakly_read_detections_are_dropped_before_grouping() -> None:
    from vision.detections import Detections
    from vision.scanner import drop_weak

    boxes = np.array([[0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]], np.float32)
    dets = Detections.from_boxes(boxes, np.array([0.9, 0.3, 0.25]), np.zeros(3))
    faces = np.zeros((3, dets.faces.shape[1]), np.float32)
    faces[:, 0] = [0.9, 0.5, 0.2]  # read strongly, fairly, weakly
    faces[:, 1] = 1 - faces[:, 0]
    read = dets.with_faces(faces)
    assert drop_weak(read, 0.0) is read
    kept = drop_weak(read, 0.1)  # scores 0.81, 0.15 (0.3 x 0.5), 0.2 (0.25 x 0.8)
    assert kept.xyxy[:, 0].tolist() == [0, 20, 40]
    kept = drop_weak(read, 0.18)
    assert kept.xyxy[:, 0].tolist() == [0, 40]


def _read_boxes(
    boxes: list[list[float]], reads: list[tuple[str, float]], coarse: int = 0
) -> Detections:
    """Detections at ``boxes`` (detector score 0.5, coarse class ``coarse``), each read as its
    code with its probability (``JK`` a card joker)."""
    from vision.classes import PIECES

    xyxy = np.array(boxes, np.float32)
    dets = Detections.from_boxes(xyxy, np.full(len(xyxy), 0.5), np.full(len(xyxy), coarse))
    faces = np.zeros((len(xyxy), dets.faces.shape[1]), np.float32)
    for row, (code, p) in enumerate(reads):
        faces[row, PIECES.names.index("JK-card" if code == "JK" else code)] = p
    return dets.with_faces(faces)


def test_a_joker_read_weakly_against_another_cards_index_is_dropped() -> None:
    from vision.scanner import drop_jokers_beside_corners

    # a column 3D 4D 5D (index 12x16, one step 30 px), a box against 4D's index (a pip, 8 px
    # off: 0.58 box sizes), one against 5D read surely as a joker, one a fan step below 5D read
    # weakly as one
    dets = _read_boxes(
        [[0, 0, 12, 16], [0, 30, 12, 46], [0, 60, 12, 76], [8, 30, 20, 46], [8, 60, 20, 76],
         [0, 90, 12, 106]],
        [("3D", 0.9), ("4D", 0.9), ("5D", 0.9), ("JK", 0.4), ("JK", 0.9), ("JK", 0.4)],
    )  # fmt: skip
    kept = drop_jokers_beside_corners(dets)
    # the weak joker beside 4D goes (0.5 x 0.4 = 0.2); the sure one and the one a step on stay
    assert kept.xyxy[:, 1].tolist() == [0, 30, 60, 60, 90]
    assert kept.codes() == ["3D", "4D", "5D", "JK", "JK"]


def test_a_corner_read_weakly_against_a_surer_index_is_dropped() -> None:
    """The suit pip under 3S's index read weakly as 9S (session 50: such a box, its own card to
    the grouping, broke the run it lay in); a corner read as weakly a fan step from its
    neighbour, or beside a corner not twice as sure, stays."""
    from vision.scanner import drop_weak_beside_corners

    # a column 2S 3S 4S (index 12x16, one step 30 px); 9S 8 px below 3S (0.58 box sizes), read
    # 0.5 x 0.34 = 0.17 against 3S's 0.45; 5S a step below 4S read 0.17 too; 6S 8 px beside 4S,
    # read 0.17 against 4S's 0.3 (not twice as sure)
    boxes = [[0, 0, 12, 16], [0, 30, 12, 46], [0, 60, 12, 76], [0, 38, 12, 54], [0, 90, 12, 106],
             [8, 60, 20, 76]]  # fmt: skip
    reads = [("2S", 0.9), ("3S", 0.9), ("4S", 0.6), ("9S", 0.34), ("5S", 0.34), ("6S", 0.34)]
    kept = drop_weak_beside_corners(_read_boxes(boxes, reads))
    assert kept.codes() == ["2S", "3S", "4S", "5S", "6S"]
    tiles = _read_boxes(boxes, reads, coarse=2)  # tiles: never
    assert len(drop_weak_beside_corners(tiles)) == 6


def test_corners_looked_for_past_the_melds_are_true_cards_of_the_real_fans(
    scanner: Scanner, real: Path
) -> None:
    """Gap filling (``gap_floor``) on the bidly fans: what it adds is cards the detector
    missed, not false ones. Measured: 2 added, both right, with session 5's models; 1 (AH),
    right, with session 6's (its detector finds more by itself); 2 (AH, KH), right, with
    session 7's. Session 25's detector misses no corner the melds point at in the fans as
    taken (nor turned, nor dark), so they are read as a hand that moved takes them (smeared
    sideways 8 px, as below), the smear left in (since session 32 it is taken out, and the
    detector then finds those corners itself): 1 added (10S), right."""
    from dataclasses import replace

    from vision.photo import load_photo

    assert scanner.config.gap_floor > 0  # served on
    # gap filling alone: the weak corners taken back at the places it looks at (session 63)
    # would be taken where it finds nothing, and are measured below
    smeared = replace(scanner.config, deblur_nsr=0, weak_overlap=0)
    with_gaps = Scanner(scanner.detector, scanner.classifier, smeared)
    without = Scanner(scanner.detector, scanner.classifier, replace(smeared, gap_floor=0))
    kernel = np.full((1, 8), 1 / 8, np.float32)
    added = Counter[str]()
    for image, truth in _fans(real):
        moved = cv2.filter2D(load_photo(image), -1, kernel)
        before = Counter(p.code for p in without.scan(moved, "cards").pieces)
        after = Counter(p.code for p in with_gaps.scan(moved, "cards").pieces)
        assert before <= after  # nothing the detector found is lost
        new = after - before
        assert new <= truth - before, (image.name, new)  # each a card that was missing
        added += new
    print(f"gap filling added {added.total()} cards: {dict(added)}")
    assert added.total() >= 1


def test_weak_corners_taken_back_change_no_card_of_the_real_fans(
    scanner: Scanner, real: Path
) -> None:
    """The weak corners taken back where a meld lacks one (``weak_overlap``, session 63) on the
    bidly fans, as taken and smeared by a moving hand, each turned every way: the fans are read
    card for card as without them. (With the smear left in, deblurring off, it adds a false
    second 8H to one fan turned a quarter: `docs/measurements.md`.)"""
    from dataclasses import replace

    from vision.photo import load_photo

    assert scanner.config.weak_overlap > 0  # served on
    off = Scanner(scanner.detector, scanner.classifier, replace(scanner.config, weak_overlap=0))
    kernel = np.full((1, 8), 1 / 8, np.float32)
    for image, _ in _fans(real):
        for turns, smeared in itertools.product(range(4), (False, True)):
            photo = np.ascontiguousarray(np.rot90(load_photo(image), turns))
            if smeared:
                photo = cv2.filter2D(photo, -1, kernel)
            on_codes = sorted(p.code for p in scanner.scan(photo, "cards").pieces)
            off_codes = sorted(p.code for p in off.scan(photo, "cards").pieces)
            assert on_codes == off_codes, (image.name, turns, smeared)


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="no rsvg-convert")
def test_a_corner_read_weakly_where_its_meld_lacks_one_completes_the_meld(
    scanner: Scanner, own_cache: Path, tmp_path: Path
) -> None:
    """`syn_cards3`' validation table 1119 (seed 505, a drawn deck), made here as `make train`
    makes it: its run 3C-6C begins with a joker that the detector boxes but the classifier
    reads under the read floor (0.11 surely, with each copy of the classifier), so the run read
    one piece short. Taken back where the run says a corner is missing (``weak_overlap``,
    :func:`vision.gaps.take_weak`, session 63), the run is read whole, its joker reported
    uncertain."""
    from dataclasses import replace

    from datasets.scene import SceneKind
    from datasets.writer import SynthJob, prepare, render_one
    from vision.classes import scheme
    from vision.evaluate import melds_read
    from vision.truth import read_synth_truth

    out = tmp_path / "syn_cards3"
    prepare(out, scheme("pieces"))
    job = SynthJob(SceneKind.CARDS, 505, (1280, 960), scheme("pieces"), False, None)
    written = render_one(job, out, 1119)
    truth = read_synth_truth(out / "truth" / f"{written.name}.json")
    photo = out / "images" / written.split / f"{written.name}.jpg"
    run = ("JK", "3C", "4C", "5C", "6C")
    assert truth.deck == "drawn/2" and run in truth.melds

    assert scanner.config.weak_overlap > 0  # served on
    served = scanner.scan(photo, "cards")
    off = Scanner(scanner.detector, scanner.classifier, replace(scanner.config, weak_overlap=0))
    without = off.scan(photo, "cards")
    assert run in melds_read(served) and run not in melds_read(without)
    assert len(served.pieces) == len(without.pieces) + 1  # that joker alone
    joker = next(i for m in served.melds for i in m.pieces if served.pieces[i].code == "JK")
    assert served.pieces[joker].confidence < scanner.config.read_floor
    assert joker in served.uncertain


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="no rsvg-convert")
def _kennard_table(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> np.ndarray:
    """`dev_decks`' table ``index`` (seed 2121), dealt from the decks held out from training
    (Adrian Kennard's jokers carry a jester in the middle and nothing in their corners), made
    here as RGB."""
    from datasets import card_art
    from datasets.scene import SceneKind, render_scene
    from datasets.tiles import HELD_OUT_TILE_STYLES
    from datasets.writer import image_seed

    monkeypatch.setenv("MELDCAM_CACHE", str(tmp_path / "cache"))  # held-out faces kept apart
    card_art.load_deck.cache_clear()
    try:
        scene = render_scene(
            image_seed(2121, index), SceneKind.CARDS, (1280, 960),
            card_art.held_out_decks(), None, 0.0, HELD_OUT_TILE_STYLES,
        )  # fmt: skip
    finally:
        card_art.load_deck.cache_clear()
    return np.ascontiguousarray(scene.image[:, :, ::-1])  # BGR -> RGB


def _meld_codes(result: ScanResult) -> list[tuple[str, ...]]:
    return [tuple(result.pieces[i].code for i in m.pieces) for m in result.melds]


def _read_whole(result: ScanResult, run: tuple[str, ...]) -> list[str]:
    """The codes of ``run``'s pieces read uncertain, once the scan is seen to read it whole
    (either way along) and valid."""
    found = _meld_codes(result)
    assert run in found or run[::-1] in found, found
    meld = result.melds[found.index(run if run in found else run[::-1])]
    assert meld.verdict.valid
    return [result.pieces[i].code for i in meld.pieces if result.pieces[i].uncertain]


def test_a_joker_with_no_mark_in_its_corners_is_read_in_its_meld(
    scanner: Scanner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dev_decks`' table 19, Kennard's deck: the run AC 2C JK 4C 5C is read whole, the joker
    reported uncertain (``vision.gaps.flanked_jokers``). Without that step the meld breaks at
    the joker."""
    import vision.gaps

    photo = _kennard_table(19, tmp_path, monkeypatch)
    run = ("AC", "2C", "JK", "4C", "5C")
    assert _read_whole(scanner.scan(photo, "cards"), run) == ["JK"]
    monkeypatch.setattr(vision.gaps, "flanked_jokers", lambda image, dets, *_: dets)
    without = scanner.scan(photo, "cards")
    assert "JK" not in [p.code for p in without.pieces]
    assert not {run, run[::-1]} & set(_meld_codes(without))


def test_a_joker_with_no_mark_at_a_melds_open_end_is_read_in_its_meld(
    scanner: Scanner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dev_decks`' table 25, Kennard's deck: the run JK 8D 9D 10D JD, its joker laid under the
    8D at the meld's open end, shows a strip of blank paper there; it is read as the joker,
    reported uncertain (``vision.gaps.open_end_jokers``). Without that step the meld reads
    8D 9D 10D JD."""
    import vision.gaps

    photo = _kennard_table(25, tmp_path, monkeypatch)
    run = ("JK", "8D", "9D", "10D", "JD")
    assert _read_whole(scanner.scan(photo, "cards"), run) == ["JK"]
    monkeypatch.setattr(vision.gaps, "open_end_jokers", lambda image, dets, *_: dets)
    found = _meld_codes(scanner.scan(photo, "cards"))
    assert run[1:] in found or run[1:][::-1] in found, found


def test_eval_from_cached_readings_reports_what_the_models_read(
    scanner: Scanner, real: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``meldcam eval --cache``: the second run takes every photo's reading from the cache, runs
    no model, and reports the same figures as a run without the cache; the cache is kept by the
    scanner's fingerprint, so other settings read the photos afresh."""
    from dataclasses import replace

    from datasets.realdata import import_real
    from vision.evaluate import evaluate_folder

    src = tmp_path / "src"
    src.mkdir()
    (src / "card-fans").symlink_to(real / "card-fans")
    import_real(src, tmp_path / "fans", link=True)
    cache = tmp_path / "cache"

    def figures(report: object) -> dict[str, object]:
        out = report.to_json()  # type: ignore[attr-defined]
        del out["ms_per_photo"]
        return out  # type: ignore[no-any-return]

    plain = figures(evaluate_folder(scanner, tmp_path / "fans", "cards", "all"))
    first = figures(evaluate_folder(scanner, tmp_path / "fans", "cards", "all", cache=cache))
    assert len(list((cache / scanner.fingerprint).glob("*.npz"))) == 2
    calls = []
    monkeypatch.setattr(scanner, "read", lambda *a, **k: calls.append(a))
    again = figures(evaluate_folder(scanner, tmp_path / "fans", "cards", "all", cache=cache))
    assert plain == first == again and not calls
    assert plain["f1"] > 0.9
    monkeypatch.undo()
    # a photo made anew at the same path is read anew, not given the old one's reading
    image = next((tmp_path / "fans" / "images").rglob("*.jpg"))
    pixels = image.read_bytes()
    image.unlink()  # import_real linked it: the real photo stays as it is
    image.write_bytes(pixels)
    read = scanner.read
    monkeypatch.setattr(scanner, "read", lambda *a, **k: calls.append(a) or read(*a, **k))
    evaluate_folder(scanner, tmp_path / "fans", "cards", "all", cache=cache)
    assert [Path(c[0]).name for c in calls] == [image.name]  # no longer a link: another path
    image.write_bytes(pixels + b"\0")  # other bytes (after the picture's end), the same picture
    anew = figures(evaluate_folder(scanner, tmp_path / "fans", "cards", "all", cache=cache))
    assert [Path(c[0]).name for c in calls] == [image.name] * 2 and anew == plain
    monkeypatch.undo()
    other = Scanner.load(Path(__file__).resolve().parents[2] / "models", gap_floor=0)
    assert other.fingerprint != scanner.fingerprint
    fresh = Scanner(scanner.detector, scanner.classifier, replace(scanner.config))
    with pytest.raises(ValueError, match="models folder"):
        evaluate_folder(fresh, tmp_path / "fans", "cards", "all", cache=cache)


def test_a_misspelt_setting_is_refused_by_name() -> None:
    """A scanner setting that scanner.json does not have names itself, instead of a TypeError
    from deep inside (``bench/conditions.py --set``, ``Scanner.load(**overrides)``)."""
    from vision.errors import UnknownSettingError

    with pytest.raises(UnknownSettingError, match="gap_flor"):
        Scanner.load(MODELS, gap_flor=0.5)
