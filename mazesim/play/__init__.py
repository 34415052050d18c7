"""The human trial recorder (DESIGN.md section 9): a local web page that records people solving
mazes under full or limited vision, in the run-directory format of the simulated agents.

`load_session` reads a session YAML file, `open_run` opens its run directory and returns the
`Recorder` (participant states, validated moves), `make_server`/`open_server` serve the page.
"""

from mazesim.play.recorder import PlayError, Recorder
from mazesim.play.run import open_run, open_server, trajectory
from mazesim.play.server import make_server
from mazesim.play.session import Session, check_participant, load_session, maze_order

__all__ = ["PlayError", "Recorder", "Session", "check_participant", "load_session", "make_server",
           "maze_order", "open_run", "open_server", "trajectory"]
