"""The human trial recorder (DESIGN.md section 9): a web page that records people solving mazes
under any vision of section 5, in the run-directory format of the simulated agents.

`load_session` reads a session YAML file, `open_run` opens its run directory and returns the
`Recorder` (participant states, validated requests), `open_server` binds the web server
(`PlayServer`, uvicorn) of a session file, `make_server` one of a recorder.
"""

from mazesim.play.entry import check_participant
from mazesim.play.recorder import PlayError, Recorder
from mazesim.play.run import open_run, open_server, trajectory
from mazesim.play.server import PlayServer, make_server
from mazesim.play.session import Session, load_session

__all__ = ["PlayError", "PlayServer", "Recorder", "Session", "check_participant", "load_session",
           "make_server", "open_run", "open_server", "trajectory"]
