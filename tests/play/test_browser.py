"""A real browser on the play page: headless Chromium (the system's, never downloaded) via Selenium.

Participants solve mazes with key presses, reload, type ahead, bump into walls, lose the
server, open a second tab, finish and leave the page to the next person; experimenters' consent
pages, questions, personal links and Prolific's entry and completion. Screenshots check that a
31x31 maze fits 1366x768 and 1920x1080 and that a window is framed and shows only the window.
Skipped, with the reason shown, only where Chromium or chromedriver is missing; with Chromium
present, a missing selenium package fails the test.
"""

from __future__ import annotations

import io
import shutil
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from mazesim.generators import generate
from mazesim.maze import format_maze, parse_maze
from mazesim.play.entry import participant_token

from tests.play.conftest import CORRIDOR, TUTORIAL, WINDOW_MAZE

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="browser test needs the Debian packages chromium and chromium-driver "
           "(apt-get install -y chromium chromium-driver)",
)

FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-dev-shm-usage", "--force-device-scale-factor=1", "--window-size=1920,1200")
# play.js COLORS
WALL, PASSAGE, OUTSIDE, FRAME = (0, 0, 0), (255, 255, 255), (138, 155, 176), (31, 95, 191)
START, GOAL, PLAYER = (143, 209, 143), (255, 210, 77), (208, 28, 28)
KEY_NAMES = {"up": "ARROW_UP", "right": "ARROW_RIGHT", "down": "ARROW_DOWN", "left": "ARROW_LEFT"}
TUTORIAL_WALK = ["down", "down", "right", "right", "down", "down"] + ["right"] * 6 + \
    ["up", "up", "right", "right", "up", "up"]
STRONG_SEED = 2**62 + 99


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


def _viewport(driver, width, height):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def _wait(driver, condition, what, seconds=15):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.05).until(
        lambda d: condition(d), message=what)


def _visible(driver, element_id):
    return driver.find_element("id", element_id).is_displayed()


def _text(driver, element_id):
    return driver.find_element("id", element_id).text


def _moves_shown(driver, n):
    return _wait(driver, lambda d: _visible(d, "game") and _text(d, "moves") == f"Moves: {n}",
                 f"Moves: {n}")


def _press(driver, *directions):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    chain = ActionChains(driver)
    for direction in directions:
        chain.send_keys(getattr(Keys, KEY_NAMES[direction]))
    chain.perform()


def _log_in(driver, url, participant):
    driver.get(url)
    _wait(driver, lambda d: _visible(d, "login"), "the id form")
    driver.find_element("id", "participant").send_keys(participant)
    driver.find_element("id", "join").click()


def _join_and_start(driver, url, participant):
    _log_in(driver, url, participant)
    _start(driver)


def _start(driver):
    _wait(driver, lambda d: _visible(d, "ready"), "the instructions")
    driver.find_element("id", "start").click()
    _moves_shown(driver, 0)


def _pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _canvas(driver):
    canvas = driver.find_element("id", "maze")
    cell, frame = (int(canvas.get_attribute(f"data-{k}")) for k in ("cell", "frame"))
    return canvas, cell, frame


def test_keys_solve_a_maze_bumps_are_recorded_and_a_reload_resumes(browser, session_factory,
                                                                   serve):
    client, recorder = serve(session_factory([(TUTORIAL, "full")]))
    _join_and_start(browser, client.url, "web-1")
    for n, key in enumerate(TUTORIAL_WALK[:5], 1):
        _press(browser, key)
        _moves_shown(browser, n)
    _press(browser, "left")                        # (4, 3): into a wall, a bump
    _wait(browser, lambda d: d.execute_script("return state.bumps") == 1, "the bump")
    browser.refresh()                              # reload mid-maze: the page resumes
    _moves_shown(browser, 5)
    for n, key in enumerate(TUTORIAL_WALK[5:-1], 6):
        _press(browser, key)
        _moves_shown(browser, n)
    browser.find_element("css selector", f"button.move.{TUTORIAL_WALK[-1]}").click()
    _wait(browser, lambda d: _visible(d, "done"), "the end of the session")
    assert [m.direction for m in recorder.store.moves("web-1", "m0")] == TUTORIAL_WALK
    (bump,) = recorder.store.bumps("web-1", "m0")
    assert (bump.seq, bump.cell, bump.direction) == (6, (4, 3), "left")
    assert bump.client_ms > 1.6e12


@pytest.mark.parametrize("width, height, size", [(1366, 768, 31), (1920, 1080, 31),
                                                 (1366, 768, 61)])
def test_a_whole_maze_fits_the_screen(browser, session_factory, serve, tmp_path, width, height,
                                      size):
    maze = generate("stick-knocking", (size, size), seed=4)
    client, _ = serve(session_factory([(format_maze(maze), "full")]))
    _viewport(browser, width, height)
    _join_and_start(browser, client.url, "fit")
    assert browser.execute_script("return [innerWidth, innerHeight]") == [width, height]
    rect = browser.execute_script("return document.getElementById('maze')"
                                  ".getBoundingClientRect().toJSON()")
    assert rect["left"] >= 0 and rect["top"] >= 0
    assert rect["right"] <= width and rect["bottom"] <= height
    assert browser.execute_script("return document.documentElement.scrollHeight") <= height
    _, cell, _ = _canvas(browser)
    assert rect["height"] == size * cell and cell >= (10 if size > 31 else 18)
    shot = _pixels(browser.get_screenshot_as_png())
    corner = cell // 8 + 2                          # inside the mark, beside its letter
    for (r, c), colour, offset in ((maze.goal, GOAL, corner), (maze.start, PLAYER, cell // 2)):
        x = int(rect["left"] + c * cell + offset)
        y = int(rect["top"] + r * cell + offset)
        assert tuple(shot[y, x]) == colour, (r, c)
    browser.save_screenshot(str(tmp_path / f"fit-{width}x{height}-{size}.png"))
    _viewport(browser, 900, 500)                   # the maze follows the window
    _wait(browser, lambda d: d.execute_script(
        "return document.getElementById('maze').getBoundingClientRect().bottom") <= 500,
        "the maze to shrink")


def test_a_window_is_framed_and_shows_only_the_window(browser, session_factory, serve):
    client, recorder = serve(session_factory([(WINDOW_MAZE, 2)]))
    _viewport(browser, 1366, 768)
    _join_and_start(browser, client.url, "web-2")
    canvas, cell, frame = _canvas(browser)
    pixels = _pixels(canvas.screenshot_as_png)
    assert pixels.shape[:2] == (5 * cell + 2 * frame,) * 2 and frame >= 4
    maze = parse_maze(WINDOW_MAZE)

    def colour_at(i, j):
        return tuple(pixels[frame + i * cell + 2, frame + j * cell + 2])

    for i in range(5):                             # at S (1, 1): two rows and columns outside
        for j in range(5):
            r, c = 1 - 2 + i, 1 - 2 + j
            expected = (OUTSIDE if not maze.in_bounds((r, c)) else
                        WALL if maze.grid[r, c] else PASSAGE)
            if (i, j) != (2, 2):
                assert colour_at(i, j) == expected, (i, j)
    for y, x in ((1, 1), (frame // 2, pixels.shape[1] // 2), (pixels.shape[0] - 2, 3)):
        assert tuple(pixels[y, x]) == FRAME
    keys = ["right", "right", "left", "left", "down", "down", "down", "down", "right"]
    for n, key in enumerate(keys, 1):
        _press(browser, key)
        _moves_shown(browser, n)
    view = browser.execute_script("return state.view;")
    assert view["rows"] == ["#.#..", "#.###", "#....", "#####", "#...."]
    assert view["goal"] is None and "position" not in view
    assert "#########" not in browser.page_source  # no maze text in the document
    pixels = _pixels(canvas.screenshot_as_png)
    centre = pixels[frame + 2 * cell + cell // 2, frame + 2 * cell + cell // 2]
    assert tuple(centre) == PLAYER
    assert [m.target for m in recorder.store.moves("web-2", "m0")][-1] == (5, 2)


def _replay(maze, keys):
    """What keys do on a maze: the moves, and the bumps as (number of the next move, key)."""
    from mazesim.maze import DELTAS, DIRECTIONS

    cell, moves, bumps = maze.start, [], []
    for key in keys:
        dr, dc = DELTAS[DIRECTIONS.index(key)]
        target = (cell[0] + int(dr), cell[1] + int(dc))
        if maze.is_passage(target):
            cell = target
            moves.append(key)
        else:
            bumps.append((len(moves) + 1, key))
    return moves, bumps


def test_keys_typed_ahead_are_all_recorded(browser, session_factory, serve):
    client, recorder = serve(session_factory([(TUTORIAL, "full")]))
    _join_and_start(browser, client.url, "fast")
    keys = (["down", "down", "left", "right", "right", "up", "down", "down", "down", "right",
             "right", "right", "up", "right", "right", "right", "down", "left", "right", "up"])
    moves, bumps = _replay(parse_maze(TUTORIAL), keys)
    assert len(moves) == 15 and len(bumps) == 5
    _press(browser, *keys)                         # 20 keys in one go
    _moves_shown(browser, len(moves))
    _wait(browser, lambda d: d.execute_script("return state.bumps") == len(bumps), "the bumps")
    assert [m.direction for m in recorder.store.moves("fast", "m0")] == moves
    assert [(b.seq, b.direction) for b in recorder.store.bumps("fast", "m0")] == bumps


def test_a_dead_server_is_announced_and_the_page_resumes(browser, session_factory, serve):
    from urllib.parse import urlsplit

    client, recorder = serve(session_factory([(TUTORIAL, "full")]))
    _join_and_start(browser, client.url, "patient")
    _press(browser, "down")
    _moves_shown(browser, 1)
    serve.stop(client)
    _press(browser, "down")
    _wait(browser, lambda d: _visible(d, "offline"), "the unreachable-server notice")
    assert "Cannot reach the server" in _text(browser, "offline")
    serve(recorder, port=urlsplit(client.url).port)    # back on the same address
    _moves_shown(browser, 2)
    _wait(browser, lambda d: not _visible(d, "offline"), "the notice to go")
    assert [m.direction for m in recorder.store.moves("patient", "m0")] == ["down", "down"]


def test_a_second_tab_makes_the_first_one_say_so(browser, session_factory, serve):
    client, recorder = serve(session_factory([(TUTORIAL, "full")]))
    _join_and_start(browser, client.url, "two-tabs")
    first = browser.current_window_handle
    browser.switch_to.new_window("tab")
    _log_in(browser, client.url, "two-tabs")       # a tab starts with no identity
    _moves_shown(browser, 0)
    browser.switch_to.window(first)
    _press(browser, "down")
    _wait(browser, lambda d: _visible(d, "other-tab"), "the other-tab notice")
    assert "open in another tab" in _text(browser, "other-tab")
    _press(browser, "down")
    assert recorder.store.moves("two-tabs", "m0") == []


def test_the_next_person_starts_fresh_and_gets_the_next_order(browser, session_factory, serve):
    client, recorder = serve(session_factory([(CORRIDOR, "full"), (CORRIDOR, 1)],
                                             order="latin"))
    _log_in(browser, client.url, "first")
    _wait(browser, lambda d: _visible(d, "ready"), "the instructions")
    assert browser.execute_script("return state.maze.id") == "m0"
    for maze in ("m0", "m1"):
        _start(browser)
        _press(browser, "right", "right", "right")
        if maze == "m0":
            _wait(browser, lambda d: _visible(d, "ready"), "the second maze")
    _wait(browser, lambda d: _visible(d, "done"), "the end")
    assert browser.execute_script("return sessionStorage.length") == 0
    browser.refresh()                              # the next person on this browser
    _wait(browser, lambda d: _visible(d, "login"), "a fresh id form")
    assert browser.find_element("id", "participant").get_attribute("value") == ""
    driver_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(client.url)
    _wait(browser, lambda d: _visible(d, "login"), "a fresh id form in a new tab")
    browser.switch_to.window(driver_tab)
    _log_in(browser, client.url, "second")
    _wait(browser, lambda d: _visible(d, "ready"), "the second person's instructions")
    assert browser.execute_script("return state.maze.id") == "m1"      # Latin square row 1


def test_consent_questions_and_debrief(browser, session_factory, serve, tmp_path):
    (tmp_path / "consent.md").write_text("# Consent\n\nYou **may** stop. <b>not bold</b>",
                                         encoding="utf-8")
    (tmp_path / "debrief.md").write_text("The study was about *branches*.", encoding="utf-8")
    session = session_factory(
        [(CORRIDOR, "full")], practice=[(CORRIDOR, "full")],
        pages={"consent": "consent.md", "debrief": "debrief.md"},
        questions=[{"id": "hand", "kind": "choice", "text": "Hand?", "options": ["left",
                                                                               "right"],
                    "when": "start"},
                   {"id": "age", "kind": "number", "text": "Age", "min": 18, "integer": True,
                    "when": "start"},
                   {"id": "notes", "kind": "text", "text": "Anything else?",
                    "required": False}])
    client, recorder = serve(session)
    _log_in(browser, client.url, "asked")
    _wait(browser, lambda d: _visible(d, "consent"), "the consent page")
    page = browser.find_element("id", "consent-page")
    assert page.find_element("tag name", "strong").text == "may"
    assert "<b>not bold</b>" in page.text
    browser.find_element("id", "agree").click()
    _wait(browser, lambda d: _visible(d, "questions"), "the questions")
    browser.find_element("css selector", "input[name=q-hand][value=right]").click()
    browser.find_element("id", "q-age").send_keys("17")
    browser.find_element("id", "answer").click()     # the browser checks the range first
    assert browser.execute_script("return document.getElementById('q-age').validity"
                                  ".rangeUnderflow") is True
    assert _visible(browser, "questions")
    age = browser.find_element("id", "q-age")
    age.clear()
    age.send_keys("42")
    browser.find_element("id", "answer").click()
    _wait(browser, lambda d: _visible(d, "ready"), "the practice maze")
    assert _text(browser, "ready-title") == "Practice maze 1 of 1"
    assert _visible(browser, "practice-note") and "red dot" in _text(browser, "ready")
    _start(browser)
    assert _visible(browser, "practice-badge")
    _press(browser, "right", "right", "right")
    _wait(browser, lambda d: _visible(d, "ready"), "the first maze")
    assert _text(browser, "ready-title") == "Maze 1 of 1" and _visible(browser, "practice-over")
    _start(browser)
    assert not _visible(browser, "practice-badge")
    _press(browser, "right", "right", "right")
    _wait(browser, lambda d: _visible(d, "questions"), "the last question")
    browser.find_element("id", "q-notes").send_keys("fun")
    browser.find_element("id", "answer").click()
    _wait(browser, lambda d: _visible(d, "done"), "the end")
    assert "The study was about branches." in _text(browser, "debrief-page")
    assert not _visible(browser, "completion")
    import sqlite3
    with sqlite3.connect(recorder.store.path) as db:
        answers = dict(db.execute("SELECT question, value FROM play_answers"))
    assert answers == {"hand": '"right"', "age": "42", "notes": '"fun"'}
    browser.get(client.url + "/dashboard#key=" + "0" * 32)      # the experimenter's view
    _wait(browser, lambda d: "dashboard key: wrong or missing" in _text(d, "message"),
          "the refused key")
    browser.get(client.url + "/dashboard#key=" + recorder.dashboard_key)
    browser.refresh()
    _wait(browser, lambda d: d.find_elements("css selector", "tr[data-participant=asked]"),
          "the participant's row")
    row = browser.find_element("css selector", "tr[data-participant=asked]").text
    assert row.startswith("asked done") and "2 of 2" in row


def test_personal_links(browser, session_factory, serve):
    session = session_factory([(CORRIDOR, "full")], seed=STRONG_SEED,
                              participants={"entry": "link", "generate": 2})
    client, recorder = serve(session)
    browser.get(client.url)
    _wait(browser, lambda d: _visible(d, "link-needed"), "the ask for a link")
    assert not _visible(browser, "login")
    browser.get(client.url + "?t=" + "0" * 32)
    _wait(browser, lambda d: "this link is not valid" in _text(d, "message"), "the refusal")
    token = participant_token(STRONG_SEED, "P2")
    browser.get(client.url + "?t=" + token + "&lang=en#top")
    _start(browser)
    assert browser.current_url == client.url + "/?lang=en#top"   # the token left the address
    assert token not in browser.execute_script("return window.location.href + document.referrer")
    browser.refresh()                              # the tab remembers: a reload resumes
    _moves_shown(browser, 0)
    _press(browser, "right", "right", "right")
    _wait(browser, lambda d: _visible(d, "done"), "the end")
    assert len(recorder.store.moves("P2", "m0")) == 3 and recorder.store.participants() == ["P2"]


def test_prolific_entry_completion_code_and_redirect(browser, session_factory, serve):
    arrived = []

    class Prolific(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            arrived.append(self.path)
            body = b"<html><body>submission complete</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    completion = HTTPServer(("127.0.0.1", 0), Prolific)
    threading.Thread(target=completion.serve_forever, daemon=True).start()
    redirect = f"http://127.0.0.1:{completion.server_port}/submissions/complete?cc=C0DE42"
    try:
        session = session_factory([(CORRIDOR, "full")], seed=STRONG_SEED,
                                  participants={"entry": "prolific"},
                                  completion={"code": "C0DE42", "redirect": redirect})
        client, recorder = serve(session)
        pid = "5f1e2d3c4b5a69788796a5b4"
        browser.get(f"{client.url}?PROLIFIC_PID={pid}&STUDY_ID=study-7&SESSION_ID=sess-9")
        _start(browser)
        assert browser.current_url == client.url + "/"           # Prolific's ids left it too
        _press(browser, "right", "right", "right")
        _wait(browser, lambda d: _visible(d, "done"), "the end")
        assert _text(browser, "completion-code") == "C0DE42"
        assert browser.find_element("id", "redirect-link").get_attribute("href") == redirect
        _wait(browser, lambda d: d.current_url == redirect, "the redirect", seconds=20)
        assert arrived[0] == "/submissions/complete?cc=C0DE42"
        import sqlite3
        with sqlite3.connect(recorder.store.path) as db:
            entry = db.execute("SELECT entry FROM play_participants").fetchone()[0]
        assert entry == (f'{{"PROLIFIC_PID": "{pid}", "STUDY_ID": "study-7", '
                         f'"SESSION_ID": "sess-9"}}')
    finally:
        completion.shutdown()
        completion.server_close()
