"""The pages in headless Chromium: they render without JavaScript; screenshots are kept.

Screenshots go to ``tests/artifacts/serve/`` (ignored by git) for a person to look at.
Skipped, with the reason, when ``/usr/bin/chromium`` is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from serve.app import AppSettings, create_app, new_state
from serve.mount import MountConfig
from tests.index.handmade import LU_SLUG, build_handmade
from tests.serve.conftest import NO_RATE
from tests.serve.corpus import SLUG, V2A
from tests.serve.server import running

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "serve"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--window-size=1280,1000")

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="headless Chromium (/usr/bin/chromium) is not installed"),
]


def chromium(url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    profile = tempfile.mkdtemp(prefix="lex-chromium-")
    try:
        return subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *extra, url],
                              capture_output=True, text=True, timeout=90, check=False)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def screenshot(url: str, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out = ARTIFACTS / f"{name}.png"
    out.unlink(missing_ok=True)
    chromium(url, f"--screenshot={out}")
    return out


@pytest.fixture(scope="module")
def corpus_site(dev_index: Path) -> Iterator[str]:
    """The real core over the shells' corpus (:mod:`tests.serve.corpus`)."""
    state = new_state(MountConfig(index_dir=dev_index, unsigned_dev=True), NO_RATE)
    state.mount()
    with running(create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))) as base:
        yield base


CORPUS_PAGES = {
    "work": f"/lu-legilux/{SLUG}",
    "ambiguous-409": f"/lu-legilux/{SLUG}/2022-06-01",
    "diff": f"/lu-legilux/{SLUG}/diff/2021-01-01/{V2A}",
    "verify": "/verify",
}


def shoot_all(base: str, pages: dict[str, str], prefix: str) -> dict[str, Path]:
    """A screenshot of every page (two Chromium processes at a time)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        shots = {name: pool.submit(screenshot, base + path, f"{prefix}-{name}") for name, path in pages.items()}
        return {name: future.result() for name, future in shots.items()}


def test_the_rendered_dom_carries_identity_semantics_and_anchors(corpus_site: str) -> None:
    dom = chromium(f"{corpus_site}/lu-legilux/{SLUG}/2021-06-01", "--dump-dom").stdout
    assert 'id="artifact-identity"' in dom and "Unsigned development index" in dom
    assert "Legilux timeline" in dom
    assert 'id="art_1"' in dom and 'id="art_2"' in dom
    assert "&lt;toute&gt;" in dom


def test_pages_render_in_chromium(corpus_site: str) -> None:
    for name, shot in shoot_all(corpus_site, CORPUS_PAGES, "corpus").items():
        assert shot.stat().st_size > 10_000, name


def test_handmade_pages_render_in_chromium(tmp_path: Path) -> None:
    build_handmade(tmp_path / "indexes")
    state = new_state(MountConfig(index_dir=tmp_path, unsigned_dev=True), NO_RATE)
    state.mount()
    pages = {"home": "/", "version": f"/lu-legilux/{LU_SLUG}/2024-06-01",
             "diff": "/eu-eurlex/32099r0001/diff/2020-06-01/2022-06-01"}
    with running(create_app(state, AppSettings(limits=NO_RATE, mount_on_startup=False))) as base:
        assert "EUR-Lex timeline" in chromium(base + pages["diff"], "--dump-dom").stdout
        for name, shot in shoot_all(base, pages, "handmade").items():
            assert shot.stat().st_size > 10_000, name
