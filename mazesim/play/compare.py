"""Human runs beside simulated runs: the same mazes, the same statistics, decision by decision.

`compare_runs(human_run, sim_run)` matches the mazes of the two run directories by their text
(grid, start, goal, marks) and computes, per vision:

- choices at each mark: the humans' first departures against each agent's (Fisher's exact test,
  the study's Table 2 with the humans of this run as the reference group);
- moves per maze: Pearson and Spearman correlation of the humans' mean moves with each agent's;
- the log-likelihood of the humans' branch-point choices under each agent of the simulated run
  (its own parameters, replayed with the vision the humans had): per decision and in bits per
  decision; the agent with the highest likelihood per decision predicts people best.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mazesim.errors import ConfigError, MazesimError
from mazesim.experiment.config import CORRELATION_METHODS
from mazesim.experiment.statistics import (ChoiceTest, Correlation, choice_test, correlations)
from mazesim.experiment.storage import HUMAN, RunStore
from mazesim.maze import parse_maze

__all__ = ["AgentLikelihood", "Comparison", "compare_runs", "format_comparison"]

HUMAN_MOVES = "human_mean_moves"


@dataclass(frozen=True)
class AgentLikelihood:
    """Human branch-point choices under one agent: natural-log likelihood over `decisions`."""

    agent: str
    vision: str
    trials: int
    decisions: int
    log_likelihood: float

    @property
    def per_decision(self) -> float:
        return self.log_likelihood / self.decisions if self.decisions else float("nan")

    @property
    def bits_per_decision(self) -> float:
        return -self.per_decision / math.log(2) if self.decisions else float("nan")


@dataclass(frozen=True)
class Comparison:
    """Everything `compare_runs` computed; `matched` maps human maze ids to simulated ones."""

    human_run: Path
    sim_run: Path
    matched: dict[int, int]
    choices: tuple[ChoiceTest, ...]
    correlations: tuple[Correlation, ...]
    likelihoods: tuple[AgentLikelihood, ...]

    def best_agent(self, vision: str) -> AgentLikelihood | None:
        """The agent with the highest finite likelihood per decision under `vision`."""
        finite = [x for x in self.likelihoods if x.vision == vision
                  and math.isfinite(x.per_decision)]
        return max(finite, key=lambda x: x.per_decision, default=None)


def compare_runs(human_run: str | Path, sim_run: str | Path) -> Comparison:
    """Compare a play run with a simulated run over the mazes they share."""
    human_run, sim_run = Path(human_run), Path(sim_run)
    with RunStore(human_run) as human, RunStore(sim_run) as sim:
        if human.meta("kind") != HUMAN:
            raise ConfigError(f"{human_run}: not a run of people (record one with `mazesim "
                              "play` or import one with `mazesim import`)")
        if sim.meta("kind") == HUMAN:
            raise ConfigError(f"{sim_run}: a run of people, not a simulated run (`mazesim run`)")
        sim_texts = {m.text: m.maze_id for m in sim.mazes()}
        mazes = {m.maze_id: m for m in human.mazes() if m.text in sim_texts}
        matched = {i: sim_texts[m.text] for i, m in mazes.items()}
        if not matched:
            raise ConfigError(f"{sim_run}: shares no maze with {human_run}")
        agents = list(sim.meta("config")["agents"])
        h_trials = human.query("SELECT trial_id, maze_id, vision, moves FROM trials "
                               "WHERE agent = ?", (HUMAN,))
        h_choices = _first_choices(human, matched.keys())
        s_choices = _first_choices(sim, matched.values())
        s_means = _mean_moves(sim, list(matched.values()))
        samples = {t: human.sample(t) for t, m, _, _ in h_trials if m in matched}
    visions = sorted({v for _, _, v, _ in h_trials})
    tests, corrs = [], []
    for v in visions:
        h_mean = _per_maze([(m, n) for _, m, vv, n in h_trials if vv == v], list(matched))
        for a in (x["label"] for x in agents):
            for mark in sorted({k[2] for k in h_choices if k[1] == v}):
                tests.append(choice_test(a, v, mark, s_choices.get((a, v, mark), {}),
                                         h_choices[(HUMAN, v, mark)]))
            sim_mean = np.array([s_means.get((a, v, matched[m]), np.nan) for m in matched])
            corrs += correlations(a, v, {HUMAN_MOVES: h_mean}, sim_mean, CORRELATION_METHODS)
    walks = [(mazes[m], v, samples[t]) for t, m, v, _ in h_trials if m in matched]
    likes = [_likelihood(spec, v, [w for w in walks if w[1] == v])
             for v in visions for spec in agents]
    return Comparison(human_run, sim_run, matched, tuple(tests), tuple(corrs),
                      tuple(x for x in likes if x is not None))


def _first_choices(store: RunStore, maze_ids: Any) -> dict:
    """{(agent, vision, mark): {direction: count}} of first departures on the given mazes."""
    ids = sorted(set(maze_ids))
    out: dict = {}
    for a, v, mark, direction, n in store.query(
            "SELECT agent, vision, mark, direction, COUNT(*) FROM choices WHERE first = 1 AND "
            f"maze_id IN ({','.join('?' * len(ids))}) GROUP BY agent, vision, mark, direction",
            ids):
        out.setdefault((a, v, mark), {})[direction] = n
    return out


def _mean_moves(store: RunStore, maze_ids: list[int]) -> dict[tuple[str, str, int], float]:
    rows = store.query("SELECT agent, vision, maze_id, AVG(moves) FROM trials GROUP BY agent, "
                       "vision, maze_id")
    return {(a, v, m): float(x) for a, v, m, x in rows if m in set(maze_ids)}


def _per_maze(pairs: list[tuple[int, int]], maze_ids: list[int]) -> np.ndarray:
    sums: dict[int, list[int]] = {}
    for m, n in pairs:
        sums.setdefault(m, []).append(n)
    return np.array([np.mean(sums[m]) if m in sums else np.nan for m in maze_ids])


def _likelihood(spec: dict, vision: str, walks: list) -> AgentLikelihood | None:
    from mazesim.agents import make_agent
    from mazesim.walks import choice_log_likelihood

    params = {k: v for k, v in spec.items() if k not in ("type", "label", "trials")}
    agent = make_agent(spec["type"], **params)
    total, decisions = 0.0, 0
    for record, _, positions in walks:
        if positions is None:
            continue
        try:
            ll = choice_log_likelihood(positions, parse_maze(record.text), agent, vision)
        except MazesimError:
            return None                # an agent without a walking rule (shortest)
        total += ll.junctions
        decisions += ll.n_junctions
    return AgentLikelihood(spec["label"], vision, len(walks), decisions, total)


def format_comparison(c: Comparison) -> str:
    """Markdown tables of a comparison."""
    lines = [f"# {c.human_run} (humans) against {c.sim_run} (agents)", "",
             f"Mazes shared: {len(c.matched)} (human maze id -> simulated maze id: "
             + ", ".join(f"{h}->{s}" for h, s in c.matched.items()) + ")", "",
             "## Log-likelihood of the human choices at branch points", "",
             "Replayed through each agent with the vision the humans had; higher is better; "
             "bits per decision = -log2 likelihood per decision.", "",
             "| vision | agent | trials | decisions | log-likelihood | per decision | "
             "bits per decision |", "|---|---|---:|---:|---:|---:|---:|"]
    for x in c.likelihoods:
        lines.append(f"| {x.vision} | {x.agent} | {x.trials} | {x.decisions} | "
                     f"{x.log_likelihood:.2f} | {x.per_decision:.3f} | "
                     f"{x.bits_per_decision:.3f} |")
    for v in sorted({x.vision for x in c.likelihoods}):
        best = c.best_agent(v)
        lines += ["", f"Best predictor of people, vision {v}: "
                  + (f"**{best.agent}** ({best.bits_per_decision:.3f} bits per decision)"
                     if best else "none (every agent rules out some human choice)")]
    lines += ["", "## Moves per maze: humans against agents", "",
              "| vision | agent | method | r | p | n mazes |", "|---|---|---|---:|---:|---:|"]
    lines += [f"| {r.vision} | {r.agent} | {r.method} | {r.r:.3f} | {r.p:.3g} | {r.n} |"
              for r in c.correlations]
    lines += ["", "## First choices at the marks", "",
              "| vision | agent | mark | agent counts | human counts | Fisher p |",
              "|---|---|---|---|---|---:|"]
    for t in c.choices:
        agent = ", ".join(f"{d.direction} {d.count} ({100 * d.proportion:.0f}%)"
                          for d in t.directions if d.count)
        human = ", ".join(f"{d.direction} {d.human}" for d in t.directions if d.human)
        lines.append(f"| {t.vision} | {t.agent} | {t.mark} | {agent} | {human} | "
                     f"{t.fisher_p:.3g} |")
    return "\n".join(lines) + "\n"
