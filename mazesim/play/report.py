"""The report of a play run: the experiment report plus the participants and every key press.

`build_play_report` writes everything `mazesim.experiment.report.build_report` writes (the human
trials are stored in the same tables, agent `human`: moves, efficiency, Table 1 with humans as the
movement source, choices at the marks, figures; `choices.csv` holds every junction choice) and
adds:

- `participants.csv`: one row per participant and maze shown, in join order then presentation
  order (`position`; `order` is the participant's whole order), practice mazes included
  (flagged), with consent, the entry fields (Prolific's study and session ids) and one column per
  question (`answer:<id>`); a participant shown no maze has one row with an empty maze.
- `moves.csv`: every move and bump in the order they happened (see `MOVE_COLUMNS`).
- a "Participants" section in `report.md`.

Pilot participants are marked (`pilot` = 1) in both files and left out of the report: their
trials are stored with agent `human-pilot`, which no statistic counts, and the section lists
them apart.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any, Iterator

from mazesim import csvfile
from mazesim.agents import parse_vision
from mazesim.errors import ConfigError
from mazesim.experiment.report import REPORT, Report, build_report
from mazesim.experiment.storage import PLAY_RECORDER, RunStore, is_play_run
from mazesim.markup import markdown_text as _md
from mazesim.maze import parse_maze

__all__ = ["PARTICIPANTS_CSV", "MOVES_CSV", "MOVE_COLUMNS", "ParticipantMaze", "participant_rows",
           "move_rows", "is_play_run", "build_play_report", "build_run_report"]

PARTICIPANTS_CSV = "participants.csv"
MOVES_CSV = "moves.csv"
MOVE_COLUMNS = ("participant", "pilot", "maze", "practice", "position", "seq", "kind",
                "direction", "row", "col", "server_ms", "client_ms", "response_ms")
"""`moves.csv`: `seq` is the move's number (a bump: the number of the move it came before);
`row`, `col` the cell after the event (a bump stays where it was); `response_ms` the time since
the previous event of the maze, or since the maze was shown, by the page's clock when it sent
its times, else by the server's."""
MOVE, BUMP = "move", "bump"
MS_PER_SECOND = 1000.0


@dataclass(frozen=True)
class ParticipantMaze:
    """One participant on one maze; times in seconds from the maze being shown."""

    participant: str
    maze: str
    practice: bool
    vision: str
    moves: int
    reached: bool
    solution_length: int | None
    efficiency: float | None
    seconds: float | None
    first_move_seconds: float | None
    choices: str            # first departure at each mark, e.g. "A:up"
    number: int = 0         # join order
    pilot: bool = False
    position: int | None = None    # 1-based place of the maze in the participant's order
    order: str = ""         # the participant's whole order, space-separated
    bumps: int = 0


def build_run_report(run_dir: str | Path) -> Report:
    """The report of any run directory: participants added for a play run (`build_play_report`),
    `mazesim.experiment.report.build_report` otherwise."""
    return (build_play_report if is_play_run(run_dir) else build_report)(run_dir)


@contextmanager
def _opened(run: str | Path | RunStore) -> Iterator[RunStore]:
    """`run` itself when it is an open store, else its run directory opened for reading (each
    opening checks every trajectory file: a report opens the run once)."""
    if isinstance(run, RunStore):
        yield run
    else:
        with RunStore(run) as store:
            yield store


def participant_rows(run: str | Path | RunStore) -> list[ParticipantMaze]:
    """Every maze shown to every participant, in join order then presentation order."""
    from mazesim.analysis import parameters
    from mazesim.walks import choices_of

    with _opened(run) as store:
        session = _session(store)
        people = store.query("SELECT participant, number, pilot, maze_order FROM "
                             "play_participants ORDER BY number")
        shown = {}
        for participant, maze_id, position, started, finished in store.query(
                "SELECT participant, maze_id, position, started_ms, finished_ms FROM "
                "play_progress ORDER BY position"):
            shown.setdefault(participant, []).append((maze_id, position, started, finished))
        moves: dict[tuple[str, str], list] = {}
        for participant, maze_id, r, c, server_ms in store.query(
                "SELECT participant, maze_id, to_row, to_col, server_ms FROM play_moves "
                "ORDER BY participant, maze_id, seq"):
            moves.setdefault((participant, maze_id), []).append(((r, c), server_ms))
        bumps = dict(((p, m), n) for p, m, n in store.query(
            "SELECT participant, maze_id, COUNT(*) FROM play_bumps GROUP BY participant, "
            "maze_id"))
        texts = _maze_texts(store, session)
    entries = {e["name"]: (e, False) for e in session["mazes"]}
    entries.update({e["name"]: (e, True) for e in session.get("practice", [])})
    rows = []
    for participant, number, pilot, order in people:
        order_text = " ".join(json.loads(order))
        if participant not in shown:
            rows.append(ParticipantMaze(participant, "", False, "", 0, False, None, None, None,
                                        None, "", number, bool(pilot), None, order_text))
        for maze_id, position, started, finished in shown.get(participant, []):
            entry, practice = entries[maze_id]
            maze = parse_maze(texts[maze_id])
            walk = moves.get((participant, maze_id), [])
            positions = [maze.start] + [cell for cell, _ in walk]
            solution = parameters(maze, ["solution_length"])["solution_length"]
            reached = finished is not None
            firsts: dict[str, str] = {}
            for choice in choices_of(maze, positions):
                if choice.mark and choice.first:
                    firsts.setdefault(choice.mark, choice.direction)
            rows.append(ParticipantMaze(
                participant, maze_id, practice, str(parse_vision(entry["vision"])), len(walk),
                reached,
                solution, solution / len(walk) if reached and walk and solution else None,
                (finished - started) / MS_PER_SECOND if reached else None,
                (walk[0][1] - started) / MS_PER_SECOND if walk else None,
                " ".join(f"{m}:{d}" for m, d in sorted(firsts.items())), number, bool(pilot),
                position + 1, order_text, bumps.get((participant, maze_id), 0)))
    return rows


def move_rows(run: str | Path | RunStore) -> list[tuple]:
    """The rows of `moves.csv` (`MOVE_COLUMNS`): every move and bump, in the order they
    happened, participants in join order and mazes in presentation order."""
    with _opened(run) as store:
        session = _session(store)
        practice = {e["name"] for e in session.get("practice", [])}
        events = store.query(
            "SELECT p.number, p.participant, p.pilot, g.maze_id, g.position, g.started_ms, "
            "g.started_client_ms, e.seq, e.kind, e.bump, e.direction, e.row, e.col, "
            "e.server_ms, e.client_ms FROM ("
            f"SELECT participant, maze_id, seq, '{MOVE}' AS kind, 0 AS bump, direction, "
            "to_row AS row, to_col AS col, server_ms, client_ms FROM play_moves UNION ALL "
            f"SELECT participant, maze_id, seq, '{BUMP}', bump, direction, row, col, server_ms, "
            "client_ms FROM play_bumps) e "
            "JOIN play_progress g USING (participant, maze_id) "
            "JOIN play_participants p USING (participant) "
            f"ORDER BY p.number, g.position, e.seq, e.kind = '{MOVE}', e.bump")
    rows, previous = [], None
    for (number, participant, pilot, maze_id, position, started, started_client, seq, kind, _,
         direction, r, c, server_ms, client_ms) in events:
        if previous is None or previous[0] != (participant, maze_id):
            previous = ((participant, maze_id), started, started_client)
        _, last_server, last_client = previous
        if client_ms is not None and last_client is not None:
            response = client_ms - last_client
        else:
            response = server_ms - last_server
        rows.append((participant, pilot, maze_id, int(maze_id in practice), position + 1, seq,
                     kind, direction, r, c, server_ms, "" if client_ms is None else client_ms,
                     round(response, 3)))
        previous = ((participant, maze_id), server_ms, client_ms)
    return rows


def build_play_report(run_dir: str | Path) -> Report:
    """`build_report`, then `participants.csv`, `moves.csv` and the participants section of
    `report.md`."""
    run_dir = Path(run_dir)
    report = build_report(run_dir)
    with RunStore(run_dir) as store:
        rows, moves = participant_rows(store), move_rows(store)
        people = _people(store)
        asked = [q["id"] for q in _session(store).get("questions", [])]
    questions = asked + sorted({q for person in people.values() for q in person["answers"]}
                               - set(asked))
    entry_fields = sorted({k for person in people.values() for k in person["entry"]})
    with open(run_dir / PARTICIPANTS_CSV, "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle)
        writer.writerow([f.name for f in fields(ParticipantMaze)] + ["consent"] + entry_fields
                        + [f"answer:{q}" for q in questions])
        for r in rows:
            person = people[r.participant]
            writer.writerow([_cell(v) for v in astuple(r)] + [_cell(person["consent"])]
                            + [person["entry"].get(k, "") for k in entry_fields]
                            + [_cell(person["answers"].get(q)) for q in questions])
    with open(run_dir / MOVES_CSV, "w", newline="", encoding="utf-8") as handle:
        writer = csvfile.writer(handle)
        writer.writerow(MOVE_COLUMNS)
        writer.writerows(moves)
    with open(run_dir / REPORT, "a", encoding="utf-8") as handle:
        handle.write("\n".join(_markdown(rows)) + "\n")
    return report


def _session(store: RunStore) -> dict:
    if store.meta("recorder") != PLAY_RECORDER:
        raise ConfigError(f"{store.run_dir}: not a play run (no human trials recorded)")
    return store.meta("session")


def _people(store: RunStore) -> dict[str, dict[str, Any]]:
    """Consent, entry fields and answers of each participant."""
    people = {p: {"consent": None if consent is None else bool(consent),
                  "entry": {k: v for k, v in json.loads(entry).items()
                            if k != "PROLIFIC_PID"}, "answers": {}}
              for p, consent, entry in store.query(
                  "SELECT participant, consent, entry FROM play_participants")}
    for participant, question, value in store.query(
            "SELECT participant, question, value FROM play_answers"):
        people[participant]["answers"][question] = json.loads(value)
    return people


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    return int(value) if isinstance(value, bool) else value


def _maze_texts(store: RunStore, session: dict) -> dict[str, str]:
    """Maze text by session name: main mazes from the database, practice mazes from meta."""
    texts = {m.meta["name"]: m.text for m in store.mazes()}
    for entry in session.get("practice", []):
        text = store.meta(f"practice:{entry['name']}")
        if text is None:
            raise ConfigError(f"{store.run_dir}: practice maze {entry['name']} is not stored")
        texts.setdefault(entry["name"], text)
    return texts


def _markdown(rows: list[ParticipantMaze]) -> list[str]:
    pilots = sorted({r.participant for r in rows if r.pilot})
    lines = ["", "## Participants", "",
             f"One row per participant and maze (also in `{PARTICIPANTS_CSV}`; every key press "
             f"in `{MOVES_CSV}`); seconds from the maze being shown; choices: the first "
             "departure from each mark; position: the maze's place in the participant's order.",
             ""]
    if pilots:
        lines += [f"Pilot participants, left out of this report and its statistics (their rows "
                  f"are in the CSV files, marked `pilot`): {', '.join(map(_md, pilots))}.", ""]
    lines += ["| participant | maze | vision | moves | reached | efficiency | seconds | "
              "first move s | choices | bumps | position |",
              "|---|---|---|---:|---|---:|---:|---:|---|---:|---:|"]
    for r in rows:
        if r.pilot or not r.maze:
            continue
        maze = f"{_md(r.maze)} (practice)" if r.practice else _md(r.maze)
        lines.append(f"| {_md(r.participant)} | {maze} | {_md(r.vision)} | {r.moves} | "
                     f"{'yes' if r.reached else 'no'} | {_num(r.efficiency, 3)} | "
                     f"{_num(r.seconds, 1)} | {_num(r.first_move_seconds, 2)} | {_md(r.choices)} | "
                     f"{r.bumps} | {r.position} |")
    return lines


def _num(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"
