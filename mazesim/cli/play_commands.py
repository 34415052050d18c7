"""Command of the human-trial recorder: `play` (serve a session's page)."""

from __future__ import annotations

import click

from mazesim.cli import main

__all__ = ["play"]


@main.command()
@click.argument("config", type=click.Path(exists=True, dir_okay=False))
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind; the default keeps the page on this computer.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port).")
def play(config: str, host: str, port: int) -> None:
    """Serve the human-trial page of session CONFIG; every move goes to its run database."""
    from mazesim.play.run import open_server

    server = open_server(config, host, port)
    recorder = server.recorder
    click.echo(f"Session {recorder.session.name}: open {server.url} in a browser "
               f"(results in {recorder.store.path.parent}; Ctrl-C stops)", )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped")
    finally:
        server.server_close()
        recorder.store.close()
