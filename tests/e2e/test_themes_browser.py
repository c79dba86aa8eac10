"""Real browser: the key pages in light and dark theme at 1024 and 1440 px.

Screenshots go to test-output/screenshots/theme-<scheme>-<width>-<page>.png. Checked on
each: the theme follows the browser's colour scheme, nothing sticks out of the viewport
sideways; on the Audit page the highlighted (disagreeing) fact-grid cells keep their text
readable: contrast >= 4.5 measured on the drawn pixels (the grid is a canvas), and the
"n fact(s)" highlight from the page's computed styles.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from scipy import ndimage

from tests.e2e.harness import (
    browser_page,
    no_horizontal_scroll,
    running_app,
    screenshot,
    wait_for_streamlit,
)
from ui.audit.fact_grid import FLAG_BG

pytestmark = pytest.mark.e2e

PAGES = {"home": "", "annotate": "annotate", "agreement": "agreement", "audit": "audit"}
PAGES["alignment"] = "alignment"
PROJECT = "demo-intent-match"  # has facts (Audit's grid), judges (Alignment) and people
MIN_CONTRAST = 4.5

#: Contrast of an element's text with what is drawn behind it, from computed styles:
#: colours with alpha are laid over the first opaque background up the tree.
DOM_CONTRAST = """
(el) => {
  const rgba = (s) => (s.match(/[\\d.]+/g) || [0, 0, 0, 0]).map(Number).concat([1]).slice(0, 4);
  const over = (top, under) => top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3]));
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const bg = rgba(getComputedStyle(e).backgroundColor);
    if (bg[3] > 0) layers.push(bg);
    if (bg[3] >= 1) break;
  }
  let back = [255, 255, 255];
  for (const layer of layers.reverse()) back = over(layer, back);
  const text = over(rgba(getComputedStyle(el).color), back);
  const lum = (c) => {
    const [r, g, b] = c.map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [hi, lo] = [lum(text), lum(back)].sort((a, b) => b - a);
  return (hi + 0.05) / (lo + 0.05);
}
"""

#: Elements of the main area sticking out of the viewport (tables, charts and code scroll
#: inside their own frame).
OVERFLOWING = """
() => {
  const scrolls = '[data-testid="stDataFrame"], [data-testid="stPlotlyChart"], .stCode';
  return [...document.querySelectorAll('[data-testid="stMain"] *')]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1
      && e.checkVisibility({visibilityProperty: true}) && !e.closest(scrolls))
    .slice(0, 5).map((e) => (e.getAttribute('data-testid') || e.tagName) + ': '
      + (e.innerText || '').slice(0, 60));
}
"""


def _luminance(rgb: np.ndarray) -> np.ndarray:
    c = rgb.astype(float) / 255
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return c @ np.array([0.2126, 0.7152, 0.0722])


def _flag_rgb() -> np.ndarray:
    hex_ = FLAG_BG.split("background-color:")[1].split(";")[0].strip().lstrip("#")
    return np.array([int(hex_[i : i + 2], 16) for i in (0, 2, 4)])


def flagged_cell_contrasts(png: bytes) -> list[float]:
    """For every highlighted cell drawn in ``png``: the contrast of its most contrasting
    pixel (the text's core) with the highlight colour. Cells are the connected regions of
    the highlight colour with what they enclose (the text)."""
    img = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    flag = _flag_rgb()
    peach = np.abs(img - flag).max(axis=2) <= 6
    cells, n = ndimage.label(ndimage.binary_fill_holes(peach))
    out = []
    bg = _luminance(flag[None, :])[0]
    for box in ndimage.find_objects(cells):
        ys, xs = box
        if (ys.stop - ys.start) < 12 or (xs.stop - xs.start) < 20:
            continue  # a sliver, not a cell
        inner = img[ys.start + 2 : ys.stop - 2, xs.start + 2 : xs.stop - 2].reshape(-1, 3)
        lum = _luminance(inner)
        far = lum[np.argmax(np.abs(lum - bg))]
        hi, lo = max(far, bg), min(far, bg)
        out.append((hi + 0.05) / (lo + 0.05))
    return out


@pytest.mark.slow
@pytest.mark.timeout(1500)  # 20 page loads in a real browser
def test_key_pages_in_light_and_dark_theme_at_two_widths(demo: str) -> None:
    problems: list[str] = []
    grid_contrasts: dict[str, list[float]] = {}
    with running_app(demo) as app:
        for scheme in ("light", "dark"):
            for width in (1024, 1440):
                with browser_page(width=width, height=900, color_scheme=scheme) as page:
                    page.set_default_timeout(90_000)
                    if not app.warmed:  # app.py runs first (see harness.open_page)
                        page.goto(app.url)
                        wait_for_streamlit(page, timeout=120_000)
                        app.warmed = True
                    for name, path in PAGES.items():
                        where = f"{scheme} {width}px {name}"
                        page.goto(f"{app.url}/{path}?project={PROJECT}")
                        wait_for_streamlit(page, timeout=90_000)
                        screenshot(page, f"theme-{scheme}-{width}-{name}")
                        rgb = page.evaluate(
                            """() => getComputedStyle(document.querySelector(
                                '[data-testid="stApp"]')).backgroundColor
                                .match(/\\d+/g).slice(0, 3).map(Number)"""
                        )
                        if (_luminance(np.array(rgb)) > 0.5) != (scheme == "light"):
                            problems.append(f"{where}: background {rgb} is not {scheme}")
                        if not no_horizontal_scroll(page):
                            problems.append(f"{where}: the page scrolls sideways")
                        problems += [f"{where}: {e}" for e in page.evaluate(OVERFLOWING)]
                        if name != "audit":
                            continue
                        grids = page.locator('[data-testid="stDataFrame"]')
                        ratios = []
                        for i in range(grids.count()):  # the audit table and fact grids
                            grids.nth(i).scroll_into_view_if_needed()
                            page.wait_for_timeout(300)  # the canvas draws once in view
                            ratios += flagged_cell_contrasts(grids.nth(i).screenshot())
                        grid_contrasts[f"{scheme} {width}"] = ratios
                        badge = page.get_by_text("fact(s)").first
                        ratio = badge.evaluate(DOM_CONTRAST)
                        if ratio < MIN_CONTRAST:
                            problems.append(f"{where}: 'n fact(s)' contrast {ratio:.2f}")
    assert problems == []
    for where, ratios in grid_contrasts.items():
        assert ratios, f"{where}: no highlighted fact-grid cell was drawn"
        assert min(ratios) >= MIN_CONTRAST, (where, ratios)


def test_the_pixel_contrast_measure_catches_white_text_on_the_highlight() -> None:
    """The measure itself: dark text on the highlight passes, white text fails."""
    for text, expected_ok in (((61, 36, 0), True), ((255, 255, 255), False)):
        img = Image.new("RGB", (200, 60), (14, 17, 23))
        cell = Image.new("RGB", (120, 30), tuple(int(v) for v in _flag_rgb()))
        for x in range(30, 90):  # a stroke of text
            for y in range(12, 18):
                cell.putpixel((x, y), text)
        img.paste(cell, (40, 15))
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        (ratio,) = flagged_cell_contrasts(buf.getvalue())
        assert (ratio >= MIN_CONTRAST) == expected_ok, ratio
