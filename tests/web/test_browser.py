"""A real browser (Debian's chromium driven by Playwright) at a phone's size against the
real server process and its SQLite file. Screenshots land in test-artifacts/."""

from __future__ import annotations

import itertools
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from live_server import start_server, stop

from web.i18n import LANGUAGES

playwright = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# A real tile photo held out of training (the validation side of the split by source photo).
REAL_TILES = (
    ROOT.parent
    / "shared/realdata/rummikub-tiles/images/rummy-16_jpeg.rf.6bdaf799147636e1bcce30f01cf63c4a.jpg"
)
REAL_FAN = ROOT.parent / "shared/realdata/card-fans/images/deal1-md-sq.jpg"
# Another held-out real tile photo: eight tiles, four of them a row that no meld holds
# (B5 Y5 R11 K7), which the scanner reads as a hand (vision.repair.strays)
REAL_ROW = (
    ROOT.parent
    / "shared/realdata/rummikub-tiles/images/rummy2-24_jpeg.rf.7b60fa17dc15c3101c025769d4091621.jpg"
)
PHONE = {"width": 390, "height": 844}

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError("chromium is missing: `make test` installs it with apt-get")
    pytest.skip("Debian chromium is not installed (make test installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    process, url = start_server(tmp_path_factory.mktemp("instance"))
    yield url
    stop(process)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, locale="en-GB")  # type: ignore[attr-defined]
    page = context.new_page()
    yield page
    context.close()


def shot(page: object, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)  # type: ignore[attr-defined]


def check_photo_notice(p: object, server: str, photo: Path, notice: str) -> str:
    """The dispute page (in English) given ``photo``: the text of its ``notice`` once read."""
    p.goto(f"{server}/check?lang=en")  # type: ignore[attr-defined]
    p.set_input_files("#check-photo", str(photo))  # type: ignore[attr-defined]
    p.locator("#verdict-title").wait_for(timeout=60_000)  # type: ignore[attr-defined]
    return str(p.locator(f"#verdict p.notice.{notice}").inner_text())  # type: ignore[attr-defined]


def burako_round_for_ada_and_bo(
    p: object, target: int | None = None, preset: str = "burako-003"
) -> None:
    """On the new-game page: a Burako game of Ada and Bo (or a game of another ``preset``), then
    its first round's editor."""
    p.select_option("#preset", preset)  # type: ignore[attr-defined]
    inputs = p.locator("#side-names input")  # type: ignore[attr-defined]
    inputs.nth(0).fill("Ada")
    inputs.nth(1).fill("Bo")
    if target is not None:
        p.fill("#target", str(target))  # type: ignore[attr-defined]
    p.click("button[type=submit]")  # type: ignore[attr-defined]
    p.wait_for_url(re.compile(r"/games/\d+$"))  # type: ignore[attr-defined]
    p.click("#enter-round")  # type: ignore[attr-defined]


def side_notice(p: object, server: str, lang: str, photo: Path, notice: str, text: str) -> int:
    """A Burako round of Ada and Bo (page in ``lang``), Ada's side given ``photo``: once it shows
    its ``notice`` saying ``text``, how many pieces the photo shows boxed."""
    p.goto(f"{server}/games/new?lang={lang}")  # type: ignore[attr-defined]
    burako_round_for_ada_and_bo(p)
    ada = p.locator(".side-card[data-side=Ada]")  # type: ignore[attr-defined]
    ada.locator("input.photo-input").set_input_files(str(photo))
    ada.locator(f"p.notice.{notice}", has_text=text).wait_for(timeout=60_000)
    return int(ada.locator(".photo svg .box").count())


def bos_hand_when_ada_closes(p: object, first: str) -> list[str]:
    """In a Burako round of Ada and Bo: Ada lays a run, takes the pot and closes, so Bo's hand
    counts against Bo; the codes (sorted) of Bo's hand line on the live sheet, the one that
    shows ``first``."""
    ada = p.locator(".side-card[data-side=Ada]")  # type: ignore[attr-defined]
    ada.locator("input.type-meld").fill("r1 r2 r3 r4 r5 r6 r7")
    ada.locator("button.add-meld").click()
    ada.locator("input.took-pot").check()
    ada.locator("input.closed").check()
    line = p.locator("#sheet table[data-side=Bo] td.codes", has_text=first)  # type: ignore[attr-defined]
    line.first.wait_for()
    return sorted(line.first.inner_text().split())


def test_a_whole_game_on_a_phone(server: str, page: object) -> None:
    """Burako on a phone: photograph real tiles, correct a recognised tile, move it into a
    typed meld, drop the rest of the photo's reading, save, see the totals; re-open the round;
    a second round ends the game with a winner; export it."""
    p = page
    p.goto(f"{server}/")  # type: ignore[attr-defined]
    p.click("#new-game")  # type: ignore[attr-defined]
    burako_round_for_ada_and_bo(p, target=500)
    ada = p.locator(".side-card[data-side=Ada]")  # type: ignore[attr-defined]
    ada.wait_for()

    ada.locator("input.type-meld").fill("r1 r2 r3 r4 r5 r6")
    ada.locator("button.add-meld").click()
    assert REAL_TILES.exists(), "the real tile photos of ../shared/realdata are needed"
    ada.locator("input.photo-input").set_input_files(str(REAL_TILES))
    boxes = ada.locator(".photo svg .box")
    boxes.first.wait_for(timeout=60_000)
    assert boxes.count() >= 8, "the model recognises the tiles of a real photo"
    assert ada.locator("p.notice.shaken").count() == 0  # a still photo is not called shaken
    recognised = boxes.count()
    # every meld read from the photo is outlined on it, numbered and judged by the rules
    outlines = ada.locator(".photo svg .meld-outline")
    outlines.filter(has_text=re.compile("[✓✗]")).first.wait_for()
    read_melds = ada.locator(".meld[data-meld]").count() - 1  # less the typed one
    assert outlines.count() == read_melds >= 1
    judged = outlines.evaluate_all(
        "gs => gs.map(g => [g.classList.contains('valid'), g.querySelector('text').textContent])"
    )
    assert all(text.endswith("✓" if valid else "✗") for valid, text in judged)
    shot(p, "round-photo")

    boxes.first.click()  # correct the first recognised tile: it is a red 7
    p.click("#picker-grid .pick >> text='7'")  # type: ignore[attr-defined]
    p.click("#picker-grid .pick.tile-red")  # type: ignore[attr-defined]
    assert boxes.first.get_attribute("data-code") == "R7"
    boxes.first.click()  # and move it into the typed meld
    p.select_option("#picker-actions select", "0")  # type: ignore[attr-defined]
    melds = ada.locator(".meld")
    first = melds.first
    first.locator(".chip[data-code=R7]").wait_for()
    while melds.count() > 1:  # drop the rest of the photo's reading
        melds.nth(1).locator(".chip[data-code]").first.click()
        p.click("#picker-actions button.danger")  # type: ignore[attr-defined]
    first.locator(".verdict-line", has_text="pure").wait_for()  # the live verdict follows
    ada.locator("input.took-pot").check()
    ada.locator("input.closed").check()
    bo = p.locator(".side-card[data-side=Bo]")  # type: ignore[attr-defined]
    bo.locator("input.hand-input").fill("K1")
    bo.locator("input.hand-input").press("Tab")
    live = p.locator("#sheet table[data-side=Ada] .live-total")  # type: ignore[attr-defined]
    live.filter(has_text="360").wait_for()
    shot(p, "round-editor")

    p.click("#save-round")  # type: ignore[attr-defined]
    p.wait_for_url(re.compile(r"/games/\d+#round-1$"))  # type: ignore[attr-defined]
    # R1-R7 pure canasta: 60 + 200, closing 100; Bo: K1 in hand, pot never taken.
    assert p.locator(".side-total[data-side=Ada]").inner_text() == "360"  # type: ignore[attr-defined]
    assert p.locator(".side-total[data-side=Bo]").inner_text() == "-115"  # type: ignore[attr-defined]
    assert p.locator(".round .thumbs img").count() == 1  # type: ignore[attr-defined]
    shot(p, "game")

    # re-opened for audit: the photo again, with what the scanner read when it was taken
    p.click(".round a.button")  # type: ignore[attr-defined]
    p.wait_for_url(re.compile(r"/games/\d+/rounds/1/edit$"))  # type: ignore[attr-defined]
    scanned = p.locator(".side-card[data-side=Ada] .photo svg .box.scanned")  # type: ignore[attr-defined]
    scanned.first.wait_for()
    assert scanned.count() == recognised
    assert p.locator(".side-card[data-side=Ada] .chip[data-code=R7]").count() == 1  # type: ignore[attr-defined]

    # a second round, typed, takes Ada past the 500 target: the game ends with her the winner
    p.go_back()  # type: ignore[attr-defined]
    p.click("#enter-round")  # type: ignore[attr-defined]
    ada = p.locator(".side-card[data-side=Ada]")  # type: ignore[attr-defined]
    ada.locator("input.type-meld").fill("b8 b9 b10 b11 b12 b13 b1")
    ada.locator("button.add-meld").click()
    ada.locator("input.took-pot").check()
    ada.locator("input.closed").check()
    p.locator("#sheet table[data-side=Ada] .live-total").filter(has_text="3").first.wait_for()  # type: ignore[attr-defined]
    p.click("#save-round")  # type: ignore[attr-defined]
    p.wait_for_url(re.compile(r"/games/\d+#round-2$"))  # type: ignore[attr-defined]
    assert "Ada" in p.locator("#result").inner_text()  # type: ignore[attr-defined]
    assert p.locator("#enter-round").count() == 0  # type: ignore[attr-defined]
    href = p.locator("a", has_text="CSV").get_attribute("href")  # type: ignore[attr-defined]
    csv = p.request.get(f"{server}{href}")  # type: ignore[attr-defined]
    assert csv.ok and csv.text().count("\n") > 4
    shot(p, "game-over")


def test_hebrew_page_lays_out_right_to_left(server: str, page: object) -> None:
    p = page
    p.goto(f"{server}/check?lang=he")  # type: ignore[attr-defined]
    assert p.evaluate("document.documentElement.dir") == "rtl"  # type: ignore[attr-defined]
    brand = p.locator(".brand").bounding_box()  # type: ignore[attr-defined]
    assert brand["x"] > PHONE["width"] / 2, "the header starts on the right"
    assert "הכרעה במחלוקת" in p.locator("h1").inner_text()  # type: ignore[attr-defined]
    shot(p, "check-hebrew")


def test_every_heading_link_shows_whole_on_a_phone_in_every_language(
    server: str, page: object
) -> None:
    # the header's links were one scrolling row, and on a 390 px phone "Settings" showed as "S"
    # cut under the language button: each must show whole, without scrolling, in every language
    p = page
    for lang in LANGUAGES:
        p.goto(f"{server}/?lang={lang}")  # type: ignore[attr-defined]
        header = p.locator("header.top").bounding_box()  # type: ignore[attr-defined]
        assert header["height"] < 120, f"{lang}: the header takes {header['height']} px"
        boxes = [
            (p.locator(sel).nth(i).inner_text(), p.locator(sel).nth(i).bounding_box())  # type: ignore[attr-defined]
            for sel in (".top .brand", ".top nav a", ".lang summary")
            for i in range(p.locator(sel).count())  # type: ignore[attr-defined]
        ]
        assert len(boxes) == 5
        for text, box in boxes:
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], (lang, text, box)
        nav = p.locator(".top nav")  # type: ignore[attr-defined]
        assert nav.evaluate("n => n.scrollWidth <= n.clientWidth"), f"{lang}: the links scroll"
        for (t1, a), (t2, b) in itertools.combinations(boxes, 2):  # none on another
            apart = (
                a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"]
            )  # fmt: skip
            assert apart, (lang, t1, t2)
    shot(p, "header-croatian")


def test_dispute_page_gives_the_verdict_and_can_i_add(server: str, page: object) -> None:
    p = page
    p.goto(f"{server}/check?lang=en")  # type: ignore[attr-defined]
    p.select_option("#check-rules", "burraco-002")  # type: ignore[attr-defined]
    p.fill("#meld", "3H 4H JK 6H 7H")  # type: ignore[attr-defined]
    p.fill("#add-piece", "5H")  # type: ignore[attr-defined]
    p.click("#check-form button[type=submit]")  # type: ignore[attr-defined]
    p.locator("#add-answer").wait_for()  # type: ignore[attr-defined]
    assert p.locator("#verdict-title").inner_text() == "Valid"  # type: ignore[attr-defined]
    assert p.locator("#add-answer").inner_text() == "Yes"  # type: ignore[attr-defined]
    assert "JK 3H 4H 5H 6H 7H" in p.locator("#verdict").inner_text()  # type: ignore[attr-defined]
    p.fill("#meld", "JK 7H 8H 2S")  # type: ignore[attr-defined]
    p.fill("#add-piece", "")  # type: ignore[attr-defined]
    p.click("#check-form button[type=submit]")  # type: ignore[attr-defined]
    p.locator("#verdict-title", has_text="Not valid").wait_for()  # type: ignore[attr-defined]
    assert "two wild cards: JK and 2S" in p.locator("#verdict-reason").inner_text()  # type: ignore[attr-defined]
    shot(p, "check")
    # in Italian the reason gets its translated title, the detail keeps the codes
    p.goto(f"{server}/check?lang=it")  # type: ignore[attr-defined]
    p.select_option("#check-rules", "burraco-002")  # type: ignore[attr-defined]
    p.fill("#meld", "JK 7H 8H 2S")  # type: ignore[attr-defined]
    p.click("#check-form button[type=submit]")  # type: ignore[attr-defined]
    reason = p.locator("#verdict-reason")  # type: ignore[attr-defined]
    reason.filter(has_text="JK").wait_for()
    from web.i18n import text

    assert reason.inner_text().startswith(text("problem.too-many-wilds", "it") + ":")


FAR_FIRST = """
const realFetch = window.fetch;
window.fetch = async (...args) => {
  const answer = await realFetch(...args);
  const photos = /\\/api\\/games\\/\\d+\\/photos$/;
  if (!photos.test(String(args[0])) || answer.status !== 201) return answer;
  const photo = await answer.json();
  photo.scan.melds.forEach((meld, k) => { meld.facing = k === 0 ? "far" : "near"; });
  const headers = { "Content-Type": "application/json" };
  return new Response(JSON.stringify(photo), { status: 201, headers });
};
"""


def test_melds_laid_for_the_other_side_can_be_moved_there(server: str, page: object) -> None:
    """A whole-table photo: the scan says one meld faces the far side (the real scan of a real
    photo, its facings set by the test); one tap gives that meld to the other side."""
    p = page
    # the page's own fetch, its photo answers rewritten as a scan of a whole table would come
    p.add_init_script(FAR_FIRST)  # type: ignore[attr-defined]
    p.goto(f"{server}/games/new")  # type: ignore[attr-defined]
    burako_round_for_ada_and_bo(p)
    ada = p.locator(".side-card[data-side=Ada]")  # type: ignore[attr-defined]
    bo = p.locator(".side-card[data-side=Bo]")  # type: ignore[attr-defined]
    ada.locator("input.photo-input").set_input_files(str(REAL_TILES))
    away = ada.locator(".meld.away")
    away.wait_for(timeout=60_000)
    melds_before = ada.locator(".meld[data-meld]").count()
    assert melds_before >= 2, "the real photo has melds on both sides of the test's split"
    moved = away.locator("p").inner_text().split(": ", 1)[1].split()
    assert bo.locator(".meld[data-meld]").count() == 0
    away.locator("button.give-away", has_text="Bo").click()
    assert ada.locator(".meld.away").count() == 0
    assert ada.locator(".meld[data-meld]").count() == melds_before - 1
    chips = bo.locator(".meld[data-meld] .chip[data-code]")
    assert [chips.nth(i).get_attribute("data-code") for i in range(chips.count())] == moved
    bo.locator(".meld[data-meld] .verdict-line").filter(has_text=re.compile(r"\w")).wait_for()
    shot(p, "round-other-side")


def test_a_game_of_three_with_edited_rules(server: str, page: object) -> None:
    """Three players, a rule changed in the editor (a choice, a number), a target: stored so."""
    p = page
    p.goto(f"{server}/games/new?lang=en")  # type: ignore[attr-defined]
    p.select_option("#preset", "burraco-fibur")  # type: ignore[attr-defined]
    p.check("input[name=players][value='3']")  # type: ignore[attr-defined]
    names = p.locator("#side-names input")  # type: ignore[attr-defined]
    assert names.count() == 3
    for k, name in enumerate(("Ada", "Bo", "Cy")):
        names.nth(k).fill(name)
    p.click("#rules-editor summary")  # type: ignore[attr-defined]
    assert p.locator("#options select[name=closing_discard] option").count() == 3  # type: ignore[attr-defined]
    p.select_option("#options select[name=closing_discard]", "any")  # type: ignore[attr-defined]
    p.fill("#options input[name=pot_penalty]", "50")  # type: ignore[attr-defined]
    p.locator("#options input[name=pot_penalty]").dispatch_event("change")  # type: ignore[attr-defined]
    p.fill("#target", "1500")  # type: ignore[attr-defined]
    p.click("button[type=submit]")  # type: ignore[attr-defined]
    p.wait_for_url(re.compile(r"/games/\d+$"))  # type: ignore[attr-defined]
    game_id = p.url.rsplit("/", 1)[1]  # type: ignore[attr-defined]
    game = p.request.get(f"{server}/api/games/{game_id}").json()  # type: ignore[attr-defined]
    assert game["sides"] == ["Ada", "Bo", "Cy"]
    assert game["rules"]["closing_discard"] == "any" and game["rules"]["pot_penalty"] == 50
    assert game["rules"]["target"] == 1500


def test_melds_are_split_merged_and_a_missed_piece_added(server: str, page: object) -> None:
    p = page
    p.goto(f"{server}/games/new?lang=en")  # type: ignore[attr-defined]
    burako_round_for_ada_and_bo(p)
    ada = p.locator(".side-card[data-side=Ada]")  # type: ignore[attr-defined]
    ada.locator("input.type-meld").fill("r3 r4 r5 k9 b9 y9")
    ada.locator("button.add-meld").click()
    melds = ada.locator(".meld[data-meld]")
    ada.locator(".meld.invalid[data-meld]").wait_for()  # one meld of six: invalid

    melds.first.locator(".chip[data-code=R5]").click()  # split after R5
    p.click("#picker-actions button >> text='Split after this'")  # type: ignore[attr-defined]
    assert melds.count() == 2
    codes = melds.evaluate_all(
        "ms => ms.map(m => [...m.querySelectorAll('.chip[data-code]')].map(c => c.dataset.code))"
    )
    assert codes == [["R3", "R4", "R5"], ["K9", "B9", "Y9"]]
    valid = ".side-card[data-side=Ada] .meld.valid[data-meld]"
    p.wait_for_function(f"() => document.querySelectorAll('{valid}').length == 2")  # type: ignore[attr-defined]

    melds.nth(1).locator(".chip.add").click()  # the photo missed a red 9
    p.click("#picker-grid .pick >> text='9'")  # type: ignore[attr-defined]
    p.click("#picker-grid .pick.tile-red")  # type: ignore[attr-defined]
    melds.nth(1).locator(".chip[data-code=R9]").wait_for()
    assert melds.nth(1).locator(".chip[data-code]").count() == 4

    melds.first.locator("button.link", has_text="Merge").click()  # and merged back
    assert melds.count() == 1
    assert melds.first.locator(".chip[data-code]").count() == 7
    ada.locator(".meld.invalid[data-meld]").wait_for()


def test_a_photo_that_cannot_be_read_says_why(server: str, page: object, tmp_path: Path) -> None:
    p = page
    p.goto(f"{server}/games/new?lang=en")  # type: ignore[attr-defined]
    burako_round_for_ada_and_bo(p)
    ada = p.locator(".side-card[data-side=Ada]")  # type: ignore[attr-defined]
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(REAL_TILES.read_bytes()[:5000])
    ada.locator("input.photo-input").set_input_files(str(broken))
    ada.locator("p.error", has_text="damaged or truncated").wait_for()
    assert ada.locator(".photo").count() == 0


def test_a_shaken_photo_is_read_and_asks_to_be_taken_again(
    server: str, page: object, tmp_path: Path
) -> None:
    import cv2
    import numpy as np

    fan = cv2.imread(str(REAL_FAN))
    smeared = tmp_path / "smeared.jpg"  # a hand that moved: 8 px sideways (1/150 of the width)
    cv2.imwrite(str(smeared), cv2.filter2D(fan, -1, np.full((1, 8), 1 / 8, np.float32)))
    p = page
    assert "Hold the phone still" in check_photo_notice(p, server, smeared, "shaken")
    p.screenshot(path=str(ARTIFACTS / "check-shaken.png"))  # type: ignore[attr-defined]
    p.fill("#meld", "5H 6H 7H")  # type: ignore[attr-defined]  # typed by hand: no photo to retake
    p.click("#check-form button[type=submit]")  # type: ignore[attr-defined]
    p.locator("#verdict-title", has_text=re.compile("^Valid$")).wait_for()  # type: ignore[attr-defined]
    assert p.locator("#verdict p.notice").count() == 0  # type: ignore[attr-defined]
    p.set_input_files("#check-photo", str(REAL_FAN))  # type: ignore[attr-defined]
    p.wait_for_function(  # type: ignore[attr-defined]
        "() => !document.querySelector('#verdict p.notice:not(.doubt)')"
        " && document.querySelector('#verdict-title')"
    )


def test_a_round_photo_taken_by_a_moving_hand_asks_to_be_taken_again(
    server: str, page: object, tmp_path: Path
) -> None:
    import cv2
    import numpy as np

    tiles = cv2.imread(str(REAL_TILES))
    smeared = tmp_path / "smeared.jpg"  # 12 px sideways on 640: tiles are still read
    cv2.imwrite(str(smeared), cv2.filter2D(tiles, -1, np.full((1, 12), 1 / 12, np.float32)))
    # what could be read is kept
    assert side_notice(page, server, "it", smeared, "shaken", "Tieni fermo il telefono") >= 8


def test_a_table_from_afar_asks_for_each_side_closer(
    server: str, page: object, tmp_path: Path
) -> None:
    """The real fan tiled 3x3 into a 4000x3000 phone photo (its cards a third of their size:
    ``vision.afar.AFAR``): the dispute page and a Burraco round's side say to come closer, and
    keep what was read; the fan as taken says nothing."""
    from datasets.realdata import table_from_afar

    table = tmp_path / "table.jpg"
    table.write_bytes(table_from_afar(REAL_FAN, 3, (4000, 3000)))
    p = page
    assert "Photograph each side's melds closer" in check_photo_notice(p, server, table, "afar")
    p.set_input_files("#check-photo", str(REAL_FAN))  # type: ignore[attr-defined]
    p.wait_for_function(  # type: ignore[attr-defined]
        "() => !document.querySelector('#verdict p.notice:not(.doubt)')"
        " && document.querySelector('#verdict-title')"
    )
    p.goto(f"{server}/games/new?lang=it")  # type: ignore[attr-defined]
    p.select_option("#preset", "burraco-fibur")  # type: ignore[attr-defined]
    inputs = p.locator("#side-names input")  # type: ignore[attr-defined]
    inputs.nth(0).fill("Ada")
    inputs.nth(1).fill("Bo")
    p.click("button[type=submit]")  # type: ignore[attr-defined]
    p.wait_for_url(re.compile(r"/games/\d+$"))  # type: ignore[attr-defined]
    p.click("#enter-round")  # type: ignore[attr-defined]
    ada = p.locator(".side-card[data-side=Ada]")  # type: ignore[attr-defined]
    ada.locator("input.photo-input").set_input_files(str(table))
    ada.locator("p.notice.afar", has_text="più da vicino").wait_for(timeout=60_000)
    assert ada.locator(".photo svg .box").count() >= 100  # what could be read is kept
    shot(p, "round-afar")
    bo = p.locator(".side-card[data-side=Bo]")  # type: ignore[attr-defined]
    bo.locator("input.photo-input").set_input_files(str(REAL_FAN))
    bo.locator(".photo svg .box").first.wait_for(timeout=60_000)
    assert bo.locator("p.notice:not(.doubt)").count() == 0  # no photo to take again
    assert ada.locator("p.notice.afar").count() == 1  # each side keeps its own notice


def test_a_thumbnail_asks_for_the_photo_at_full_size(
    server: str, page: object, tmp_path: Path
) -> None:
    """The real fan shrunk from 1200 to 300 px (corners about 12 px: ``vision.afar.LOW_RES_PX``)
    on the dispute page, the real tiles shrunk to a sixth (tiles about 12 px) on a Burako
    round's side (in Croatian): each asks for the photo at its full size and keeps what was
    read; a photo of 10x10 px is refused with its size."""
    from PIL import Image

    fan, tiles, tiny = tmp_path / "fan.png", tmp_path / "tiles.png", tmp_path / "tiny.png"
    for photo, out, factor in ((REAL_FAN, fan, 0.25), (REAL_TILES, tiles, 1 / 6)):
        with Image.open(photo) as image:
            size = (round(image.width * factor), round(image.height * factor))
            image.convert("RGB").resize(size, Image.Resampling.LANCZOS).save(out)
    Image.new("RGB", (10, 10), (200, 180, 150)).save(tiny)
    p = page
    assert "at its full size" in check_photo_notice(p, server, fan, "low-resolution")
    shot(p, "check-low-resolution")
    assert side_notice(p, server, "hr", tiles, "low-resolution", "punoj veličini") >= 8
    ada = p.locator(".side-card[data-side=Ada]")  # type: ignore[attr-defined]
    ada.locator("input.photo-input").set_input_files(str(tiny))
    ada.locator("p.error", has_text="10x10").wait_for(timeout=60_000)


def test_a_black_and_white_photo_says_its_suits_are_guesses(
    server: str, page: object, tmp_path: Path
) -> None:
    """The real fan in grey on the dispute page (in Spanish), the real tiles in grey on a Burako
    round's side: each says the photo is black and white and keeps what was read; the fan in
    colour says nothing (the afar test)."""
    import cv2

    grey, tiles = tmp_path / "grey.jpg", tmp_path / "tiles.jpg"
    cv2.imwrite(str(grey), cv2.cvtColor(cv2.imread(str(REAL_FAN)), cv2.COLOR_BGR2GRAY))
    cv2.imwrite(str(tiles), cv2.cvtColor(cv2.imread(str(REAL_TILES)), cv2.COLOR_BGR2GRAY))
    p = page
    p.goto(f"{server}/check?lang=es")  # type: ignore[attr-defined]
    p.set_input_files("#check-photo", str(grey))  # type: ignore[attr-defined]
    p.locator("#verdict-title").wait_for(timeout=60_000)  # type: ignore[attr-defined]
    notice = p.locator("#verdict p.notice.colourless").inner_text()  # type: ignore[attr-defined]
    assert "blanco y negro" in notice
    assert side_notice(p, server, "en", tiles, "colourless", "black and white") >= 8


def test_a_photo_settles_a_dispute_and_another_counts_a_hand(server: str, page: object) -> None:
    p = page
    p.goto(f"{server}/check?lang=en")  # type: ignore[attr-defined]
    p.select_option("#check-rules", "burako-003")  # type: ignore[attr-defined]
    p.set_input_files("#check-photo", str(REAL_TILES))  # type: ignore[attr-defined]
    p.locator("#verdict-title").wait_for(timeout=60_000)  # type: ignore[attr-defined]
    typed = p.input_value("#meld").split()  # type: ignore[attr-defined]
    assert len(typed) >= 3 and all(c[0] in "KRBY" or c == "JK" for c in typed)
    assert p.locator("#verdict > .chips .chip").count() == len(typed)  # type: ignore[attr-defined]
    # the photo's other melds (it shows several) are offered, each a tap away from its verdict
    other = p.locator("#verdict .other-meld").first  # type: ignore[attr-defined]
    codes = " ".join(c.get_attribute("data-code") for c in other.locator(".chip").all())
    other.locator("button.check-other").click()
    p.wait_for_function(f"() => document.querySelector('#meld').value === {codes!r}")  # type: ignore[attr-defined]
    p.locator("#verdict > .chips .chip").nth(len(codes.split()) - 1).wait_for()  # type: ignore[attr-defined]
    shown = p.locator("#verdict .other-meld .chip")  # type: ignore[attr-defined]
    assert typed == [c.get_attribute("data-code") for c in shown.all()][: len(typed)]

    p.goto(f"{server}/games/new?lang=en")  # type: ignore[attr-defined]
    burako_round_for_ada_and_bo(p)
    bo = p.locator(".side-card[data-side=Bo]")  # type: ignore[attr-defined]
    bo.locator("input.hand-photo").set_input_files(str(REAL_TILES))
    p.wait_for_function(  # type: ignore[attr-defined]
        "() => document.querySelector('.side-card[data-side=Bo] input.hand-input').value.length"
    )
    hand = bo.locator("input.hand-input").input_value().split()
    assert len(hand) >= 8  # every tile of the photo counted in the hand
    assert bos_hand_when_ada_closes(p, hand[0]) == sorted(hand)


def test_a_hand_found_in_a_table_photo_is_offered_to_the_sides_hand(
    server: str, page: object
) -> None:
    """The real scan of a real photo: the rows it reads as a hand are shown apart from the loose
    tiles, and one tap counts a row as left in Bo's hand (Ada closes: it counts against Bo).
    (The photo's eight tiles lie in staggered rows: session 45's detector reads two of them as
    rows of a hand, the one before read one.)"""
    p = page
    p.goto(f"{server}/games/new?lang=en")  # type: ignore[attr-defined]
    burako_round_for_ada_and_bo(p)
    bo = p.locator(".side-card[data-side=Bo]")  # type: ignore[attr-defined]
    bo.locator("input.photo-input").set_input_files(str(REAL_ROW))
    rows = bo.locator(".meld.found-hand")
    rows.first.wait_for(timeout=60_000)
    count = rows.count()
    found = rows.first
    assert found.locator("p").inner_text() == "Read as a hand or a rack, not a meld"
    chips = found.locator(".chip[data-code]")
    row = [chips.nth(i).get_attribute("data-code") for i in range(chips.count())]
    assert len(row) >= 3
    in_rows = bo.locator(".meld.found-hand .chip[data-code]").count()
    loose = bo.locator(".meld.loose .chip[data-code]")
    shown = [loose.nth(i).get_attribute("data-code") for i in range(loose.count())]
    assert len(shown) + in_rows >= 8  # the photo's other tiles stay loose, each shown once
    shot(p, "round-found-hand")
    found.locator("button.to-hand").click()
    assert bo.locator(".meld.found-hand").count() == count - 1
    assert bo.locator(".meld.found-hand .chip[data-code]").count() == in_rows - len(row)
    assert bo.locator("input.hand-input").input_value().split() == row
    assert bo.locator(".meld.loose .chip[data-code]").count() == len(shown)
    assert bos_hand_when_ada_closes(p, row[0]) == sorted(row)


def test_the_pages_need_nothing_but_this_server(server: str, page: object) -> None:
    """No internet at the table: every request of every page goes to meldcam itself."""
    p = page
    elsewhere: list[str] = []

    def only_here(route: object) -> None:
        url = route.request.url  # type: ignore[attr-defined]
        if url.startswith(server) or url.startswith(("data:", "blob:")):
            route.continue_()  # type: ignore[attr-defined]
        else:
            elsewhere.append(url)
            route.abort()  # type: ignore[attr-defined]

    p.route("**/*", only_here)  # type: ignore[attr-defined]
    for path in ("/", "/games/new", "/check"):
        p.goto(f"{server}{path}?lang=en")  # type: ignore[attr-defined]
        p.wait_for_load_state("networkidle")  # type: ignore[attr-defined]
    p.fill("#meld", "7H 8H 9H")  # type: ignore[attr-defined]
    p.click("#check-form button[type=submit]")  # type: ignore[attr-defined]
    p.locator("#verdict-title", has_text=re.compile("^Valid$")).wait_for()  # type: ignore[attr-defined]
    assert elsewhere == []


SLOW_PHOTOS = """
const realFetch = window.fetch;
window.fetch = async (...args) => {
  const answer = await realFetch(...args);
  if (/\\/photos$/.test(String(args[0]))) await new Promise((done) => setTimeout(done, 1500));
  return answer;
};
"""


def test_reading_a_photo_shows_progress_until_the_boxes_come(server: str, page: object) -> None:
    p = page
    p.add_init_script(SLOW_PHOTOS)  # type: ignore[attr-defined]
    p.goto(f"{server}/games/new?lang=en")  # type: ignore[attr-defined]
    burako_round_for_ada_and_bo(p)
    ada = p.locator(".side-card[data-side=Ada]")  # type: ignore[attr-defined]
    ada.locator("input.photo-input").set_input_files(str(REAL_TILES))
    progress = ada.locator(".progress .spinner")
    progress.wait_for()
    assert ada.locator(".photo").count() == 0
    ada.locator(".photo svg .box").first.wait_for(timeout=60_000)
    assert progress.count() == 0


KEEP_SCAN = """
const realFetch = window.fetch;
window.fetch = async (...args) => {
  const answer = await realFetch(...args);
  if (/\\/(api\\/scan|photos)$/.test(String(args[0])) && answer.ok) {
    const body = await answer.clone().json();
    window.scanned = body.scan || body;  // a round's photo carries its scan
  }
  return answer;
};
"""


def blurred_fan(tmp_path: Path) -> Path:
    """The real fan blurred (Gaussian, sigma 3 px): still read, a few cards uncertainly (five
    with each of the three classifier copies, one of them in a meld: 2C or 2S QH AH)."""
    import cv2

    out = tmp_path / "blurred.jpg"
    cv2.imwrite(str(out), cv2.GaussianBlur(cv2.imread(str(REAL_FAN)), (0, 0), 3.0))
    return out


def test_pieces_read_uncertainly_are_marked_until_set_by_hand(
    server: str, page: object, tmp_path: Path
) -> None:
    """The real scan of a real photo (kept by the test as the page got it): the pieces it calls
    uncertain are marked "?" on the dispute page, in the meld checked and in the photo's other
    melds offered beside it, and in a round, chips and boxes alike, with a notice; a piece set
    by hand is no longer marked."""
    p = page
    p.add_init_script(KEEP_SCAN)  # type: ignore[attr-defined]
    photo = blurred_fan(tmp_path)
    p.goto(f"{server}/check?lang=en")  # type: ignore[attr-defined]
    p.set_input_files("#check-photo", str(photo))  # type: ignore[attr-defined]
    p.locator("#verdict-title").wait_for(timeout=60_000)  # type: ignore[attr-defined]
    scan = p.evaluate("window.scanned")  # type: ignore[attr-defined]
    codes = lambda meld: [scan["pieces"][i]["code"] for i in meld["pieces"]]  # noqa: E731
    doubts = {
        " ".join(codes(m)): sorted(
            scan["pieces"][i]["code"] for i in m["pieces"] if i in scan["uncertain"]
        )
        for m in scan["melds"]
    }
    assert any(doubts.values()), "the blurred fan no longer reads a meld with a piece in doubt"
    verdict_marks = lambda: sorted(  # noqa: E731
        c.get_attribute("data-code")
        for c in p.locator("#verdict > .chips .chip.doubt").all()  # type: ignore[attr-defined]
    )
    checked = p.input_value("#meld")  # type: ignore[attr-defined]
    assert verdict_marks() == doubts[checked]
    others = p.locator("#verdict .other-meld")  # type: ignore[attr-defined]
    assert others.count() == len(scan["melds"]) - 1  # every other meld a tap away
    for row in others.all():
        shown = " ".join(c.get_attribute("data-code") for c in row.locator(".chip").all())
        marked = sorted(c.get_attribute("data-code") for c in row.locator(".chip.doubt").all())
        assert marked == doubts[shown]
    if not doubts[checked]:  # check the meld that holds a doubt instead
        row = p.locator("#verdict .other-meld", has=p.locator(".chip.doubt")).first  # type: ignore[attr-defined]
        wanted = " ".join(c.get_attribute("data-code") for c in row.locator(".chip").all())
        row.locator("button.check-other").click()
        p.wait_for_function(f"() => document.querySelector('#meld').value === {wanted!r}")  # type: ignore[attr-defined]
        p.locator("#verdict-title").wait_for()  # type: ignore[attr-defined]
        p.wait_for_function("() => document.querySelector('#verdict > .chips .chip.doubt')")  # type: ignore[attr-defined]
        checked = wanted
    assert verdict_marks() == doubts[checked]
    assert p.locator("#verdict p.notice.doubt").inner_text().startswith("Read uncertainly")  # type: ignore[attr-defined]
    shot(p, "check-doubt")
    p.fill("#meld", "5H 6H 7H")  # type: ignore[attr-defined]  # typed by hand: nothing in doubt
    p.click("#check-form button[type=submit]")  # type: ignore[attr-defined]
    p.locator("#verdict-title", has_text=re.compile("^Valid$")).wait_for()  # type: ignore[attr-defined]
    assert verdict_marks() == [] and p.locator("#verdict p.notice.doubt").count() == 0  # type: ignore[attr-defined]

    p.goto(f"{server}/games/new?lang=en")  # type: ignore[attr-defined]
    burako_round_for_ada_and_bo(p, preset="burraco-fibur")
    ada = p.locator(".side-card[data-side=Ada]")  # type: ignore[attr-defined]
    ada.locator("input.photo-input").set_input_files(str(photo))
    ada.locator(".photo svg .box").first.wait_for(timeout=60_000)
    scan = p.evaluate("window.scanned")  # type: ignore[attr-defined]
    uncertain = sorted(scan["pieces"][i]["code"] for i in scan["uncertain"])
    assert len(uncertain) >= 2
    chips = ada.locator(".chip.doubt")
    assert (
        sorted(chips.nth(i).get_attribute("data-code") for i in range(chips.count())) == uncertain
    )
    assert ada.locator(".photo svg .box.doubt").count() == len(uncertain)
    assert "read uncertainly" in ada.locator("p.notice.doubt").inner_text()
    shot(p, "round-doubt")
    first = ada.locator(".meld[data-meld] .chip.doubt").first
    first.click()
    p.locator("#picker-grid .picker-row").first.locator(".pick", has_text=re.compile("^A$")).click()  # type: ignore[attr-defined]
    p.locator("#picker-grid .picker-row").nth(1).locator(".pick").first.click()  # type: ignore[attr-defined]
    assert ada.locator(".chip.doubt").count() == len(uncertain) - 1
    assert ada.locator(".photo svg .box.doubt").count() == len(uncertain) - 1
