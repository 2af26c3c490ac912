"""Every rule problem's code has a short translated title in the page's catalogue."""

from __future__ import annotations

import re

import pytest

from scorer.melds import ProblemCode
from web import i18n

CODES = list(ProblemCode)
OTHERS = ["it", "es", "he", "hr"]
# Piece codes as the notation writes them: 7H, 10S, AD, K7, R13, JK.
PIECE_CODE = re.compile(r"\b(?:(?:10|[2-9AJQK])[SHDC]|[KRBY](?:1[0-3]|[1-9])|JK)\b")


def key(code: ProblemCode) -> str:
    return f"problem.{code.value}"


def test_codes_are_many() -> None:
    assert len(CODES) >= 20


@pytest.mark.parametrize("code", CODES, ids=str)
def test_every_code_has_a_title(code: ProblemCode) -> None:
    assert key(code) in i18n._TEXT


def test_no_title_without_a_code() -> None:
    titles = {k for k in i18n._TEXT if k.startswith("problem.")}
    assert titles == {key(code) for code in CODES}


@pytest.mark.parametrize("code", CODES, ids=str)
def test_titles_are_short_sentences(code: ProblemCode) -> None:
    entry = i18n._TEXT[key(code)]
    assert len(entry) == len(i18n.LANGUAGES)
    for lang, title in zip(i18n.LANGUAGES, entry, strict=True):
        assert title.strip() == title and title, (lang, title)
        assert not title.endswith((".", "。", "!")), (lang, title)
        assert 1 <= len(title.split()) <= 7, (lang, title)
        assert title[0] == title[0].upper(), (lang, title)  # sentence case (Hebrew has none)
        assert not PIECE_CODE.search(title), (lang, title)


@pytest.mark.parametrize("lang", ["it", "es", "he"])
def test_titles_are_translated(lang: str) -> None:
    same = [c for c in CODES if i18n.text(key(c), lang) == i18n.text(key(c), "en")]
    assert same == []


def test_croatian_titles_are_mostly_translated() -> None:
    same = [c for c in CODES if i18n.text(key(c), "hr") == i18n.text(key(c), "en")]
    assert len(same) <= len(CODES) // 10, same


def test_hebrew_titles_are_hebrew() -> None:
    for code in CODES:
        title = i18n.text(key(code), "he")
        assert re.search("[\u0590-\u05ff]", title), title


def test_text_gives_each_language_its_own_title() -> None:
    assert i18n.text("problem.too-few", "en") == "Too few pieces"
    assert i18n.text("problem.too-few", "es") == "Muy pocas piezas"
    assert i18n.text("problem.gap", "xx") == i18n.text("problem.gap", "en")


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_catalogue_holds_the_titles(lang: str) -> None:
    catalogue = i18n.catalogue(lang)
    for code in CODES:
        assert catalogue[key(code)] == i18n.text(key(code), lang)
    assert catalogue["problem"]  # the generic word stays
