"""`mazesim play`: one-line errors, and a real server process that prints its loopback address."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from mazesim.cli import main
from tests.processes import reaped

CORRIDOR = "######\n#S..G#\n######\n"


def _config(tmp_path: Path, **extra) -> Path:
    (tmp_path / "c.txt").write_text(CORRIDOR, encoding="utf-8")
    top = {"name": "cli", "output": "run", "mazes": "[{file: c.txt, vision: 1}]", **extra}
    lines = [f"{k}: {v}" for k, v in top.items()]
    path = tmp_path / "play.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_bad_config_is_one_error_line(tmp_path):
    config = _config(tmp_path, order="sometimes")
    result = CliRunner().invoke(main, ["play", str(config)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"Error: {config}: order: 'sometimes' is not an order (allowed: fixed, shuffled, latin)"]


def test_missing_config_and_bad_port_are_usage_errors(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["play", str(tmp_path / "none.yaml")])
    assert result.exit_code == 2 and "does not exist" in result.output
    result = runner.invoke(main, ["play", str(_config(tmp_path)), "--port", "70000"])
    assert result.exit_code == 2 and "--port" in result.output


def test_busy_port_is_one_error_line(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(main, ["play", str(_config(tmp_path)), "--port", str(port)])
    assert result.exit_code == 2
    assert re.fullmatch(rf"Error: host 127.0.0.1, port {port}: cannot listen \(.+\)\n",
                        result.output)


def _serve(config: Path, *args: str, inherit_sigint_ignored: bool = False
           ) -> tuple[subprocess.Popen, str]:
    """A `mazesim play` process and its first line; the caller stops it under `reaped`."""
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if inherit_sigint_ignored \
        else None
    process = subprocess.Popen([sys.executable, "-m", "mazesim", "play", str(config),
                                "--port", "0", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=config.parent,
                               preexec_fn=ignore)
    line = process.stdout.readline()
    if not line:
        process.kill()
        raise AssertionError(process.communicate()[1])
    return process, line


def test_play_serves_on_loopback_and_prints_the_address(tmp_path):
    config = _config(tmp_path)
    process, line = _serve(config)
    with reaped(process):
        url = re.fullmatch(r"Session cli: open (http://127\.0\.0\.1:\d+/) in a browser\n", line)
        assert url, line
        assert process.stdout.readline() == f"  results: {tmp_path / 'run'}\n"
        assert re.fullmatch(rf"  dashboard: {url.group(1)}dashboard#key=[0-9a-f]{{32}}\n",
                            process.stdout.readline())
        with urllib.request.urlopen(url.group(1), timeout=10) as response:
            assert response.status == 200 and b"Maze study" in response.read()
        request = urllib.request.Request(url.group(1) + "api/join",
                                         json.dumps({"participant": "cli-1"}).encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            state = json.loads(response.read())["state"]
        assert state["phase"] == "ready" and state["maze"] == {
            "id": "maze-1", "practice": False, "vision": 1, "number": 1, "of": 1}
        foreign = urllib.request.Request(url.group(1), headers={"Host": "evil.example"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(foreign, timeout=10)
        assert refused.value.code == 403                # and one line on stderr
        process.send_signal(signal.SIGINT)            # Ctrl-C: requests in flight finish first
        assert process.wait(timeout=20) == 0
    *logged, last = process.stderr.read().strip().splitlines()
    assert last == "stopped"
    assert len(logged) == 1 and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d mazesim play: "
                                             r"refused request: 403 / \(client -\): forbidden "
                                             r"host", logged[0]), logged
    assert (tmp_path / "run" / "results.sqlite").is_file()
    assert (tmp_path / "run" / "session.yaml").is_file()


@pytest.mark.parametrize("inherited", [False, True], ids=["default", "sigint-ignored"])
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_a_signal_stops_the_server_whatever_it_inherited(tmp_path, stop, inherited):
    """Started in the background (`cmd &` from a script: SIGINT ignored), the server outlived
    the README test's Ctrl-C and ran on. A signal right after the start line, or after a
    request, stops it: exit 0, `stopped`, the database closed (no lock, no journal left)."""
    for served in range(2):
        process, line = _serve(_config(tmp_path), "--json", inherit_sigint_ignored=inherited)
        with reaped(process):
            if served:
                url = json.loads(line)["url"]
                with urllib.request.urlopen(url, timeout=10) as response:
                    assert response.status == 200
            process.send_signal(stop)
            assert process.wait(timeout=20) == 0
        assert process.stderr.read().strip().splitlines()[-1:] == ["stopped"]
        assert sorted(p.name for p in (tmp_path / "run").iterdir()
                      if p.name.startswith(("results.sqlite", "writer"))) == ["results.sqlite"]


def test_json_start_and_a_second_server_on_one_output(tmp_path):
    config = _config(tmp_path)
    process, line = _serve(config, "--json")
    with reaped(process):
        info = json.loads(line)
        assert set(info) == {"session", "url", "host", "port", "dashboard", "output", "links"}
        assert info["port"] > 0 and info["url"] == f"http://127.0.0.1:{info['port']}/"
        assert info["output"] == str(tmp_path / "run") and info["links"] is None
        assert info["dashboard"].startswith(info["url"] + "dashboard#key=")
        result = CliRunner().invoke(main, ["play", str(config), "--port", "0"])
        assert result.exit_code == 2
        assert re.fullmatch(rf"Error: {tmp_path / 'run'}: pid {process.pid} \(mazesim play\) is "
                            r"writing this run; wait for it to finish or stop it \(a run has one "
                            r"writer at a time\)\n", result.output)


def test_input_errors_are_one_line(tmp_path):
    runner = CliRunner()
    (tmp_path / "cut.txt").write_text("#######\n#S.#.G#\n#######\n", encoding="utf-8")
    for extra, message in [
        ({"output": "/etc/passwd"}, "output: '/etc/passwd': /etc/passwd is a file, not a "
                                    "directory"),
        ({"mazes": "[{file: cut.txt, name: cut}]"}, "mazes[0]: maze cut: G (1, 5) cannot be "
                                                     "reached from S (1, 1)"),
    ]:
        config = _config(tmp_path, **extra)
        result = runner.invoke(main, ["play", str(config)])
        assert (result.exit_code, result.output) == (2, f"Error: {config}: {message}\n")
    result = runner.invoke(main, ["play", str(_config(tmp_path)), "--host", "0.0.0.0"])
    assert result.exit_code == 2 and result.output == (
        "Error: host: 0.0.0.0: not a loopback address (a public study needs public_url, "
        "the address participants open)\n")
    result = runner.invoke(main, ["play", str(_config(tmp_path)), "--public-url",
                                  "https://x.org"])
    assert result.exit_code == 2 and "participants.entry: id (a public study needs tokens" in \
        result.output


def test_compare_errors_are_one_line(tmp_path):
    from mazesim.experiment.storage import RunStore
    from mazesim.play.run import open_run
    from mazesim.play.session import load_session

    (tmp_path / "sim").mkdir()
    RunStore(tmp_path / "sim", create=True).close()
    open_run(load_session(_config(tmp_path))).store.close()
    runner = CliRunner()
    result = runner.invoke(main, ["compare", str(tmp_path / "sim"), str(tmp_path / "run")])
    assert result.exit_code == 2
    assert result.output == f"Error: {tmp_path / 'sim'}: not a run of people (record one with " \
                            "`mazesim play` or import one with `mazesim import`)\n"
    result = runner.invoke(main, ["compare", str(tmp_path / "run"), str(tmp_path / "run")])
    assert result.exit_code == 2 and "a run of people, not a simulated run" in result.output
    result = runner.invoke(main, ["compare", str(tmp_path / "run"), str(tmp_path / "none")])
    assert result.exit_code == 2 and "does not exist" in result.output


def test_play_help_states_the_server_defaults():
    """The CLI leaves the defaults to `play.server` and says what they are."""
    from mazesim.play.server import DEFAULT_HOST, DEFAULT_PORT

    text = " ".join(CliRunner().invoke(main, ["play", "--help"]).output.split())
    assert f"[default: {DEFAULT_HOST}," in text and f"[default: {DEFAULT_PORT}]" in text
