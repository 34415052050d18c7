"""Which way round the obstacles: route checks of fitted models on a run in full view.

A walk passes an obstacle (`maze.meta["obstacles"]`, the cells of each labelled obstacle) on its
**far side** when the walk, closed by the straight line from its end back to S, winds around the
obstacle's centre: the obstacle lies between the route and the straight line from S to G. Per
maze, the **route share** of an obstacle is the share of walks that pass it on its far side;
with the mean path length (moves) and turns (moves whose direction differs from the one before)
the **cell shares** (per floor cell, the share of walks that visit it: which of several
equal-length routes, which the obstacles alone rarely tell apart), these are what
`check_routes` sets beside people's for each model of a fit: every model walks
each maze `walks` times per person who walked it, with the fitted parameters (a fit's pooled
ones), and, with `cv_mazes` = K, the base grids (`meta["base_grid"]`: a grid and its
transformations stay together) are dealt into K seeded folds, every model is fitted again
without each fold and walks its mazes. Summaries: Pearson r over (maze, obstacle) of the route
shares, over (maze, floor cell) of the cell shares (and its median over mazes), and over mazes
of the mean length and turns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from mazesim.agents import make_agent
from mazesim.agents.base import trial_streams
from mazesim.agents.trees import maze_name
from mazesim.errors import DataError
from mazesim.humans.data.run import HumanRun
from mazesim.maze import Maze

__all__ = ["RouteMeasures", "ModelRoutes", "RouteReport", "walk_measures", "check_routes",
           "format_routes", "MAX_ROUTE_WALKS"]

MAX_ROUTE_WALKS = 10**7
"""Most walks of a whole check (models x people's trials x walks, folds included)."""
_OFFSET = np.array([0.0137, 0.0093])    # keeps a centre off the lines between cell centres


@dataclass(frozen=True)
class RouteMeasures:
    """Per maze (in the run's order): walks, mean moves, mean turns, the route share of each
    obstacle (label -> share) and the cell shares (a float grid)."""

    walks: np.ndarray
    moves: np.ndarray
    turns: np.ndarray
    shares: tuple[dict[str, float], ...]
    cells: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class ModelRoutes:
    """One model's walks measured (in-sample; `held_out`: refitted without each fold) and the
    correlations with people's: route shares over (maze, obstacle), moves and turns over
    mazes."""

    model: str
    fitted: RouteMeasures
    held_out: RouteMeasures | None
    r: dict[str, float]


@dataclass(frozen=True)
class RouteReport:
    run: str
    fit: str
    walks: int
    seed: int
    cv_mazes: int
    mazes: tuple[str, ...]
    people: RouteMeasures
    models: tuple[ModelRoutes, ...]

    def to_json(self) -> dict:
        def measures(m: RouteMeasures) -> list[dict]:
            return [{"maze": name, "walks": int(m.walks[k]), "moves": float(m.moves[k]),
                     "turns": float(m.turns[k]), "shares": m.shares[k]}
                    for k, name in enumerate(self.mazes)]
        return {"run": self.run, "fit": self.fit, "walks": self.walks, "seed": self.seed,
                "cv_mazes": self.cv_mazes or None, "people": measures(self.people),
                "models": [{"model": m.model, "r": m.r, "fitted": measures(m.fitted),
                            "held_out": None if m.held_out is None else measures(m.held_out)}
                           for m in self.models]}


def walk_measures(maze: Maze, walks: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray,
                                                                    dict[str, np.ndarray]]:
    """Moves, turns and, per obstacle label, whether each walk passes it on its far side."""
    obstacles = dict(maze.meta.get("obstacles", {}))
    centres = np.array([np.mean(cells, axis=0) for cells in obstacles.values()]).reshape(-1, 2)
    centres = centres + _OFFSET
    moves = np.array([len(w) - 1 for w in walks], np.int64)
    turns = np.empty(len(walks), np.int64)
    far = np.zeros((len(walks), len(centres)), bool)
    for k, walk in enumerate(walks):
        steps = np.diff(walk, axis=0)
        turns[k] = int(np.any(steps[1:] != steps[:-1], axis=1).sum()) if len(steps) > 1 else 0
        loop = np.vstack([walk, walk[:1]]).astype(np.float64)
        rel = loop[:, None, :] - centres[None]                  # (T + 2, K, 2)
        angle = np.arctan2(rel[..., 1], rel[..., 0])
        turn = np.diff(angle, axis=0)
        turn = (turn + np.pi) % (2 * np.pi) - np.pi
        far[k] = np.abs(np.rint(turn.sum(axis=0) / (2 * np.pi))) % 2 == 1
    return moves, turns, {label: far[:, j] for j, label in enumerate(obstacles)}


def _summary(mazes: Sequence[Maze], walks: Sequence[list[np.ndarray]]) -> RouteMeasures:
    counts, moves, turns, shares, cells = [], [], [], [], []
    for maze, group in zip(mazes, walks):
        m, t, far = walk_measures(maze, group)
        visits = np.zeros(maze.shape)
        for walk in group:
            seen = np.zeros(maze.shape, bool)
            seen[walk[:, 0], walk[:, 1]] = True
            visits += seen
        cells.append(visits / max(len(group), 1))
        counts.append(len(group))
        moves.append(m.mean() if len(m) else np.nan)
        turns.append(t.mean() if len(t) else np.nan)
        shares.append({label: float(f.mean()) if len(f) else float("nan")
                       for label, f in far.items()})
    return RouteMeasures(np.array(counts), np.array(moves), np.array(turns), tuple(shares),
                         tuple(cells))


def _model_walks(run: HumanRun, maze_ids: Sequence[int], agent: str, settings: dict,
                 walks: int, seed: int, label: str) -> list[list[np.ndarray]]:
    """`walks` walks per person's trial of each maze, of the agent with `settings`."""
    out = []
    model = make_agent(agent, **settings)
    for m in maze_ids:
        maze = run.mazes[m]
        trials = sum(1 for t in run.trials if t.maze_id == m)
        vision = next(t.vision for t in run.trials if t.maze_id == m)
        streams = trial_streams(np.random.SeedSequence([seed, m, *label.encode()]),
                                trials * walks)
        got = model.run_trials(maze, vision, streams, model.resolved_max_steps(maze),
                               keep=True, record=np.zeros(maze.shape, bool))
        ends = np.cumsum(got.moves + 1)
        out.append(np.split(got.positions, ends[:-1]))
    return out


def _correlations(people: RouteMeasures, model: RouteMeasures,
                  mazes: Sequence[Maze]) -> dict[str, float]:
    pairs = [(people.shares[k][o], model.shares[k][o]) for k in range(len(people.shares))
             for o in people.shares[k]]
    x, y = np.array(pairs).reshape(-1, 2).T
    contested = (x > 0.05) & (x < 0.95)
    floor = [maze.grid == 0 for maze in mazes]
    per_maze = [_r(a[f], b[f]) for a, b, f in zip(people.cells, model.cells, floor)]
    return {"route_shares": _r(x, y), "contested_shares": _r(x[contested], y[contested]),
            "cell_shares": _r(np.concatenate([a[f] for a, f in zip(people.cells, floor)]),
                              np.concatenate([b[f] for b, f in zip(model.cells, floor)])),
            "cell_shares_median": float(np.nanmedian(per_maze)),
            "contested": int(contested.sum()), "moves": _r(people.moves, model.moves),
            "turns": _r(people.turns, model.turns)}


def _r(x: np.ndarray, y: np.ndarray) -> float:
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 3 or np.std(x[ok]) == 0 or np.std(y[ok]) == 0:
        return float("nan")
    return float(np.corrcoef(x[ok], y[ok])[0, 1])


def check_routes(run: HumanRun, fit_dir: str | Path, *, walks: int = 10, seed: int = 0,
                 cv_mazes: int = 0, models: Sequence[str] = ()) -> RouteReport:
    """Every model of the fit `fit_dir` (`models`: only these) against the people of `run`."""
    from mazesim.humans.fitting.junction import fit_run
    from mazesim.humans.predict.run import read_fit

    fitted = [m for m in read_fit(fit_dir) if not models or m.label in models]
    if not fitted:
        raise DataError(f"{fit_dir}: no model to check")
    ids = sorted(run.mazes)
    if any("obstacles" not in run.mazes[m].meta for m in ids):
        raise DataError(f"{run.path}: mazes without obstacles (import them with `mazesim "
                        "import vgc`)")
    total = len(fitted) * len(run.trials) * walks * (2 if cv_mazes else 1)
    if total > MAX_ROUTE_WALKS:
        raise DataError(f"{total:,} walks (at most {MAX_ROUTE_WALKS:,})")
    mazes = [run.mazes[m] for m in ids]
    people = _summary(mazes, [[t.positions for t in run.trials if t.maze_id == m] for m in ids])
    folds = _folds(run, ids, cv_mazes, seed)
    out = []
    for model in fitted:
        mine = _summary(mazes, _model_walks(run, ids, model.agent, model.settings("", True),
                                            walks, seed, model.label))
        held = None
        if cv_mazes:
            groups: dict[int, list[np.ndarray]] = {}
            for fold in range(cv_mazes):
                test = [m for m, f in zip(ids, folds) if f == fold]
                keep = np.array([t.maze_id not in test for t in run.trials])
                refit = fit_run(run.select(keep), [model.spec], folds=0, seed=seed).models[0]
                settings = {**model.spec.fixed, **refit.estimate.params,
                            "lapse": refit.estimate.lapse}
                for m, w in zip(test, _model_walks(run, test, model.agent, settings, walks,
                                                   seed, model.label)):
                    groups[m] = w
            held = _summary(mazes, [groups[m] for m in ids])
        r = {f"fitted_{k}": v for k, v in _correlations(people, mine, mazes).items()}
        if held is not None:
            r.update({f"held_out_{k}": v for k, v in _correlations(people, held,
                                                                    mazes).items()})
        out.append(ModelRoutes(model.label, mine, held, r))
    return RouteReport(str(run.path), str(fit_dir), walks, seed, cv_mazes,
                       tuple(maze_name(m) for m in mazes), people, tuple(out))


def _folds(run: HumanRun, ids: Sequence[int], k: int, seed: int) -> list[int]:
    """The fold of each maze: its base grid's, base grids dealt at random into k folds."""
    if not k:
        return [0] * len(ids)
    bases = [str(run.mazes[m].meta.get("base_grid", maze_name(run.mazes[m]))) for m in ids]
    unique = sorted(set(bases))
    if not 2 <= k <= len(unique):
        raise DataError(f"cv_mazes {k}: between 2 and the {len(unique)} base grids")
    order = np.random.default_rng(np.random.SeedSequence([seed, 2])).permutation(len(unique))
    fold = {unique[j]: n % k for n, j in enumerate(order)}
    return [fold[b] for b in bases]


def format_routes(report: RouteReport) -> str:
    """Markdown: per model the correlations with people (fitted, and held out)."""
    lines = [f"# Routes of {report.fit} beside the people of {report.run}", "",
             f"{len(report.mazes)} mazes; {report.walks} walks per person's trial (seed "
             f"{report.seed}); held out: {report.cv_mazes or 'none'} folds of base grids. "
             "r: Pearson over (maze, obstacle) of the share passing each obstacle on its far "
             "side (contested: people's share within 0.05-0.95), over (maze, floor cell) of the "
             "share of walks visiting each cell (median: of the per-maze r), and over mazes of "
             "mean moves and turns.", ""]
    for what in ("fitted", "held_out") if report.cv_mazes else ("fitted",):
        lines += [f"{'Fitted to all mazes' if what == 'fitted' else 'Held-out mazes'}:", "",
                  "| model | shares r | contested r | cells r | cells median r | moves r | "
                  "turns r |", "|---|---:|---:|---:|---:|---:|---:|"]
        for m in report.models:
            cells = [m.r.get(f"{what}_{k}", float("nan")) for k in (
                "route_shares", "contested_shares", "cell_shares", "cell_shares_median",
                "moves", "turns")]
            lines.append(f"| {m.model} | " + " | ".join(f"{v:.3f}" for v in cells) + " |")
        lines.append("")
    p = report.people
    lines += [f"People: {int(p.walks.sum()):,} walks, mean moves {np.mean(p.moves):.2f}, "
              f"mean turns {np.mean(p.turns):.2f}."]
    return "\n".join(lines) + "\n"
