"""Command of the human-trial recorder: `play` (serve a session's page)."""

from __future__ import annotations

import contextlib
import json
import logging
import signal
from typing import TYPE_CHECKING, Iterator

import click

from mazesim.cli import main

if TYPE_CHECKING:
    from mazesim.play.server import PlayServer

__all__ = ["play"]


@main.command()
@click.argument("config", type=click.Path(exists=True, dir_okay=False))
@click.option("--host", default=None,
              help="Address to bind [default: 127.0.0.1, which keeps the page on this computer].")
@click.option("--port", default=None, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port) [default: 8000].")
@click.option("--public-url", metavar="URL", default=None,
              help="The address participants open (https behind a reverse proxy): needed for a "
                   "non-loopback --host, allows exactly its host, needs participant tokens.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the start as one JSON object: session, url, host, port (the one bound), "
                   "dashboard, output, links.")
def play(config: str, host: str | None, port: int | None, public_url: str | None,
         as_json: bool) -> None:
    """Serve the human-trial page of session CONFIG; every key press goes to its run database."""
    from mazesim.play.guard import LOGGER
    from mazesim.play.run import open_server, start_info

    given = {key: value for key, value in (("host", host), ("port", port)) if value is not None}
    server = open_server(config, public_url=public_url, **given)   # defaults: play.server
    info = start_info(server)
    try:                                # a Ctrl-C as soon as the start is read stops it too
        _stop_on_signals(server)
        if as_json:
            click.echo(json.dumps(info))
        else:
            click.echo(f"Session {info['session']}: open {info['url']} in a browser")
            if public_url:
                click.echo(f"  listening on {info['host']}:{info['port']}")
            click.echo(f"  results: {info['output']}")
            click.echo(f"  dashboard: {info['dashboard']}")
            if info["links"]:
                click.echo(f"  participant links: {info['links']}")
            click.echo("  Ctrl-C stops")
        with _log_to_stderr(LOGGER):
            server.serve_forever()      # returns once a signal has asked it to stop
        click.echo("stopped", err=True)
    finally:
        server.server_close()
        server.recorder.store.close()


def _stop_on_signals(server: PlayServer) -> None:
    """SIGINT and SIGTERM stop the server whatever this process inherited: a command started
    in the background (`cmd &` from a script) starts with SIGINT ignored, and a signal before
    the server's own handlers are in place (or after they are gone) would be lost.

    The handler asks the server to stop rather than raising KeyboardInterrupt: raised while the
    event loop was being set up, it left uvloop "running" and the command ended in a traceback."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda signum, frame: server.stop_soon())


@contextlib.contextmanager
def _log_to_stderr(name: str) -> Iterator[None]:
    """While serving, the server's refusals as time-stamped lines on stderr."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s mazesim play: %(message)s",
                                           "%Y-%m-%d %H:%M:%S"))
    logger = logging.getLogger(name)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
