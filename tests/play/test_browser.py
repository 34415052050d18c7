"""A real browser on the play page: headless Chromium (the system's, never downloaded) via Selenium.

A participant solves a small maze with key presses, reloads mid-maze and goes on; the stored
trajectory equals the keys pressed; at vision k = 2 the screenshot shows the 5 x 5 window only.
Skipped, with the reason shown, only where Chromium or chromedriver is missing; with Chromium
present, a missing selenium package fails the test.
"""

from __future__ import annotations

import io
import shutil

import numpy as np
import pytest

from mazesim.maze import DELTAS, DIRECTIONS, parse_maze

from tests.play.conftest import TUTORIAL, WINDOW_MAZE

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="browser test needs the Debian packages chromium and chromium-driver "
           "(apt-get install -y chromium chromium-driver)",
)

FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-dev-shm-usage", "--force-device-scale-factor=1", "--window-size=900,1000")
WINDOW_CELL_PX = 48                                # play.js WINDOW_CELL_PX
WALL_RGB, PASSAGE_RGB, GOAL_RGB = (0, 0, 0), (255, 255, 255), (255, 210, 77)
KEY_NAMES = {"up": "ARROW_UP", "right": "ARROW_RIGHT", "down": "ARROW_DOWN", "left": "ARROW_LEFT"}


@pytest.fixture
def browser(tmp_path):
    try:
        from selenium import webdriver
    except ImportError:              # Chromium is there: a missing driver library is a defect
        pytest.fail("chromium is installed but the python package selenium is not "
                    "(pip install selenium)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def _wait(driver, condition, what):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, 15, poll_frequency=0.05).until(
        lambda d: condition(d), message=what)


def _visible(driver, element_id):
    return driver.find_element("id", element_id).is_displayed()


def _moves_shown(driver, n):
    return _wait(driver, lambda d: _visible(d, "game") and
                 d.find_element("id", "moves").text == f"Moves: {n}", f"Moves: {n}")


def _press(driver, direction):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(driver).send_keys(getattr(Keys, KEY_NAMES[direction])).perform()


def _join_and_start(driver, url, participant):
    driver.get(url)
    _wait(driver, lambda d: _visible(d, "login"), "the id form")
    driver.find_element("id", "participant").send_keys(participant)
    driver.find_element("id", "join").click()
    _wait(driver, lambda d: _visible(d, "ready"), "the instructions")
    driver.find_element("id", "start").click()
    _moves_shown(driver, 0)


def test_keys_solve_a_maze_and_a_reload_resumes(browser, session_factory, serve):
    client, recorder = serve(session_factory([(TUTORIAL, "full")]))
    _join_and_start(browser, client.url, "web-1")
    keys = ["down", "down", "up", "up", "right", "right", "right", "right", "down", "down", "right"]
    for n, key in enumerate(keys[:5], 1):
        _press(browser, key)
        _moves_shown(browser, n)
    _press(browser, "up")                          # (1, 2): into a wall, not sent, not counted
    browser.refresh()                              # reload mid-maze: the page resumes
    _moves_shown(browser, 5)
    for n, key in enumerate(keys[5:-1], 6):
        _press(browser, key)
        _moves_shown(browser, n)
    browser.find_element("css selector", f"button.move.{keys[-1]}").click()  # on-screen button
    _moves_shown(browser, len(keys))
    rest = ["right", "up", "up", "right", "right", "right", "right"]
    for key in rest:
        _press(browser, key)
    _wait(browser, lambda d: _visible(d, "done"), "the end of the session")
    stored = [m.direction for m in recorder.store.moves("web-1", "m0")]
    assert stored == keys + rest
    walk = np.cumsum([DELTAS[DIRECTIONS.index(k)] for k in stored], axis=0) + (1, 1)
    assert tuple(walk[-1]) == parse_maze(TUTORIAL).goal


def test_limited_vision_screenshot_shows_only_the_window(browser, session_factory, serve):
    from PIL import Image

    client, recorder = serve(session_factory([(WINDOW_MAZE, 2)]))
    _join_and_start(browser, client.url, "web-2")
    keys = ["right", "right", "left", "left", "down", "down", "down", "down", "right"]
    for n, key in enumerate(keys, 1):
        _press(browser, key)
        _moves_shown(browser, n)
    canvas = browser.find_element("id", "maze")
    image = Image.open(io.BytesIO(canvas.screenshot_as_png)).convert("RGB")
    side = 5 * WINDOW_CELL_PX
    assert image.size == (side, side)
    maze = parse_maze(WINDOW_MAZE)
    r0, c0 = 5, 2                                   # where the keys lead
    assert [tuple(m.target) for m in recorder.store.moves("web-2", "m0")][-1] == (r0, c0)
    pixels = np.asarray(image)
    for i in range(5):
        for j in range(5):
            y, x = i * WINDOW_CELL_PX + 3, j * WINDOW_CELL_PX + 3
            expected = WALL_RGB if maze.grid[r0 - 2 + i, c0 - 2 + j] else PASSAGE_RGB
            assert tuple(pixels[y, x]) == expected, (i, j)
    centre = pixels[2 * WINDOW_CELL_PX + WINDOW_CELL_PX // 2, 2 * WINDOW_CELL_PX + 24]
    assert centre[0] > 150 and centre[1] < 80       # the participant's red dot
    page_view = browser.execute_script("return state.view;")
    assert page_view["rows"] == ["#.#..", "#.###", "#....", "#####", "#...."]
    assert page_view["goal"] is None and "position" not in page_view
    source = browser.page_source
    assert "#########" not in source                # no maze text in the document
    # walk on until the goal enters the window: drawn in the goal colour at its offset
    more = ["right"] * 5 + ["up"] * 2 + ["left"] * 2 + ["up"] * 2 + ["right"] * 4 + ["down"] * 6
    for n, key in enumerate(more, len(keys) + 1):
        _press(browser, key)
        _moves_shown(browser, n)
    view = browser.execute_script("return state.view;")
    assert view["goal"] is not None
    gi, gj = view["goal"][0] + 2, view["goal"][1] + 2
    pixels = np.asarray(Image.open(io.BytesIO(canvas.screenshot_as_png)).convert("RGB"))
    y, x = gi * WINDOW_CELL_PX + 9, gj * WINDOW_CELL_PX + 9
    assert tuple(pixels[y, x]) == GOAL_RGB
