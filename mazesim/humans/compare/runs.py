"""People beside simulated agents: the same mazes, the same statistics, decision by decision.

`compare_runs(human_run, sim_run)` matches the mazes of the two run directories by their text
(grid, start, goal, marks) and computes, per vision of the people:

- bits per junction decision of the people under each agent of the simulated run, read with the
  vision the people had: the agent's parameters as the run's config gave them (`fixed`), or
  fitted to the people (`fitted`, with `fit=True`); the lapse is fitted in both cases, so no
  human choice has probability 0. Pooled over people with a 95 % bootstrap interval over
  participants, and per participant with a 95 % bootstrap interval over their trials;
- choices at each mark: the people's first departures against each agent's (Fisher's exact
  test, the study's Table 2 with these people as the reference group), Holm-adjusted over
  every test of the comparison;
- moves per maze: Pearson and Spearman correlation of the people's mean moves with each agent's,
  both counted by the report's rule (definitions.md, "The counting rule": capped trials left out
  unless the run's config includes them; a condition with more than `tables.CAPPED_WARNING` of
  its trials capped by its restricted mean, `tables.outcomes`).

In-sample bits (the lapse, and with `fit=True` the parameters, are fitted to the same
decisions); `mazesim fit` cross-validates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from mazesim.errors import DataError
from mazesim.experiment.config import CORRELATION_METHODS
from mazesim.experiment.statistics import (MIN_MAZES, ChoiceTest, Correlation, choice_test,
                                           correlations, holm)
from mazesim.experiment.results import Results, load_run
from mazesim.experiment.storage import HUMAN
from mazesim.experiment.tables import outcomes
from mazesim.humans.data.run import HumanRun, bits, excluded, load_human_run
from mazesim.humans.fitting.junction import fit_run
from mazesim.experiment.statistics import BOOTSTRAP_RESAMPLES, CONFIDENCE
from mazesim.agents import AGENTS, KernelAgent
from mazesim.agents.trees import maze_name
from mazesim.humans.fitting.models import ModelSpec, fitted_params
from mazesim.markup import markdown_text as _md
from mazesim.markup import table_rule

__all__ = ["ParticipantBits", "AgentBits", "Comparison", "compare_runs", "format_comparison",
           "moves_note"]

HUMAN_MOVES = "human_mean_moves"
FIXED, FITTED_PARAMS = "fixed", "fitted"
_NOT_PARAMS = ("type", "label", "trials", "max_steps", "lapse")   # reading needs no cap


@dataclass(frozen=True)
class ParticipantBits:
    """One participant under one agent: bits per decision, 95 % interval over their trials
    (NaN with one trial)."""

    participant: str
    trials: int
    decisions: int
    bits: float
    ci: tuple[float, float]


@dataclass(frozen=True)
class AgentBits:
    """People's junction decisions under one agent: `how` its parameters were set (`fixed`:
    the simulated run's, `fitted`: to these people), the fitted lapse, pooled bits with a 95 %
    interval over participants, and each participant's."""

    agent: str
    vision: str
    how: str
    params: dict[str, Any]
    lapse: float
    trials: int
    decisions: int
    bits: float
    ci: tuple[float, float]
    baseline_bits: float
    participants: tuple[ParticipantBits, ...]


@dataclass(frozen=True)
class Comparison:
    """Everything `compare_runs` computed; `matched` maps human maze ids to simulated ones;
    `holm_p` holds the Holm-adjusted p of each choice test (NaN where none was made)."""

    human_run: Path
    sim_run: Path
    matched: dict[int, int]
    choices: tuple[ChoiceTest, ...]
    holm_p: tuple[float, ...]
    correlations: tuple[Correlation, ...]
    scores: tuple[AgentBits, ...]
    unscored: tuple[str, ...]

    def best_agent(self, vision: str) -> AgentBits | None:
        """The agent with the fewest bits per decision under `vision`."""
        return min((x for x in self.scores if x.vision == vision), key=lambda x: x.bits,
                   default=None)

    def to_json(self) -> dict[str, Any]:
        """Everything as plain JSON values (no NaN: what was not computed is null, and `note`
        says why)."""
        return {
            "human_run": str(self.human_run), "sim_run": str(self.sim_run),
            "matched": {str(h): s for h, s in self.matched.items()},
            "scores": [{"agent": x.agent, "vision": x.vision, "how": x.how, "params": x.params,
                        "lapse": x.lapse, "trials": x.trials, "decisions": x.decisions,
                        "bits": x.bits, "ci": list(x.ci), "baseline_bits": x.baseline_bits,
                        "participants": [{"participant": p.participant, "trials": p.trials,
                                          "decisions": p.decisions, "bits": p.bits,
                                          "ci": list(p.ci) if math.isfinite(p.ci[0])
                                          else None}
                                         for p in x.participants]} for x in self.scores],
            "unscored": list(self.unscored),
            "correlations": [{"agent": r.agent, "vision": r.vision, "method": r.method,
                              "r": _finite(r.r), "p": _finite(r.p), "n": r.n,
                              "estimate": r.estimate, "tau": _finite(r.tau),
                              "note": moves_note(r)} for r in self.correlations],
            "choices": [{"agent": t.agent, "vision": t.vision, "mark": t.mark,
                         "counts": {d.direction: d.count for d in t.directions},
                         "human": {d.direction: d.human for d in t.directions if d.human},
                         "test": t.test, "p": _finite(t.fisher_p), "holm_p": _finite(q),
                         "note": t.note} for t, q in zip(self.choices, self.holm_p)],
        }


def compare_runs(human_run: str | Path, sim_run: str | Path, *, fit: bool = False,
                 seed: int = 0, exclude_participants: Sequence[str] = (),
                 exclude_mazes: Sequence[str] = ()) -> Comparison:
    """Compare a run of people with a simulated run over the mazes they share, without the
    excluded participants (ids) and mazes (names)."""
    human_run, sim_run = Path(human_run), Path(sim_run)
    people = excluded(load_human_run(human_run), exclude_participants, exclude_mazes)
    gone = {i for i, maze in people.mazes.items() if maze_name(maze) in set(exclude_mazes)}
    human, sim = load_run(human_run), load_run(sim_run)
    if sim.kind == HUMAN:
        raise DataError(f"{sim_run}: a run of people, not a simulated run (`mazesim run`)")
    sim_texts = dict(zip(sim.mazes["text"], sim.mazes["maze_id"].tolist()))
    matched = {i: sim_texts[t] for i, t in zip(human.mazes["maze_id"].tolist(),
                                               human.mazes["text"])
               if t in sim_texts and i not in gone}
    if not matched:
        raise DataError(f"{sim_run}: shares no maze with {human_run}")
    agents = list(sim.meta["config"]["agents"])
    out = human.trials["participant"].isin(set(exclude_participants))
    h_moves = human.trials_counted[~out & (human.trials_counted["agent"] == HUMAN)]
    h_choices = _first_choices(human, matched.keys(), human.trials["trial_id"][out])
    s_choices = _first_choices(sim, matched.values())
    s_means = {(o.agent, o.vision): o for o in outcomes(sim)}
    s_rows = {m: k for k, m in enumerate(sim.mazes["maze_id"].tolist())}
    visions = sorted({str(t.vision) for t in people.trials})
    tests, corrs = [], []
    for v in visions:
        h_mean = _per_maze(h_moves[h_moves["vision"] == v], list(matched))
        for a in (x["label"] for x in agents):
            for mark in sorted({k[2] for k in h_choices if k[1] == v}):
                tests.append(choice_test(a, v, mark, s_choices.get((a, v, mark), {}),
                                         h_choices[(HUMAN, v, mark)]))
            shown = s_means.get((a, v))
            sim_mean = np.array([np.nan if shown is None else shown.values[s_rows[matched[m]]]
                                 for m in matched])
            corrs += correlations(a, v, {HUMAN_MOVES: h_mean}, sim_mean, CORRELATION_METHODS,
                                  **({} if shown is None else {"estimate": shown.estimate,
                                                               "tau": shown.tau}))
    scores, unscored = [], []
    for v in visions:
        keep = np.array([t.maze_id in matched and str(t.vision) == v for t in people.trials])
        run = people.select(keep)
        for entry in agents:
            spec = _spec(entry, fit)
            if spec is None:
                unscored.append(f"{entry['label']}: {entry['type']} gives no step "
                                "probabilities")
            elif len(run.decisions):
                scores.append(_scores(entry["label"], v, spec, run, fit, seed))
    return Comparison(human_run, sim_run, matched, tuple(tests),
                      tuple(holm([t.fisher_p for t in tests]).tolist()), tuple(corrs),
                      tuple(scores), tuple(dict.fromkeys(unscored)))


def _spec(entry: dict, fit: bool) -> ModelSpec | None:
    """The model of a simulated run's agent entry: its config keys fixed (with `fit`, those of
    its declared `fitted` parameters free); None for an agent without step probabilities."""
    name = entry["type"]
    if not issubclass(AGENTS[name], KernelAgent):
        return None
    free = fitted_params(name) if fit else ()
    fixed = {k: v for k, v in entry.items()
             if k not in _NOT_PARAMS and k not in {p.name for p in free}}
    return ModelSpec(entry["label"], name, fixed, tuple(free))


def _scores(label: str, vision: str, spec: ModelSpec, run: HumanRun, fit: bool, seed: int
            ) -> AgentBits:
    (result,) = fit_run(run, [spec], folds=0, seed=seed).models
    d = run.decisions
    people = len(run.participants)
    rng = np.random.default_rng(np.random.SeedSequence([seed, *label.encode(),
                                                        *vision.encode()]))
    nll = -np.bincount(d.participant, weights=result.log_probs, minlength=people)
    counts = np.bincount(d.participant, minlength=people)
    samples = rng.integers(0, people, size=(BOOTSTRAP_RESAMPLES, people))
    pooled = _interval(nll[samples].sum(axis=1) / np.maximum(counts[samples].sum(axis=1), 1))
    parts = []
    for i, name in enumerate(run.participants):
        mine = d.participant == i
        trials = np.unique(d.trial[mine])
        per_trial = np.bincount(np.searchsorted(trials, d.trial[mine]),
                                weights=-result.log_probs[mine], minlength=len(trials))
        n_trial = np.bincount(np.searchsorted(trials, d.trial[mine]), minlength=len(trials))
        pick = rng.integers(0, len(trials), size=(BOOTSTRAP_RESAMPLES, len(trials)))
        ci = (_interval(per_trial[pick].sum(axis=1) / np.maximum(n_trial[pick].sum(axis=1), 1))
              if len(trials) >= 2 else (math.nan, math.nan))       # one trial: no spread
        parts.append(ParticipantBits(name, len(trials), int(counts[i]),
                                     bits(-float(nll[i]), int(counts[i])), ci))
    return AgentBits(label, vision, FITTED_PARAMS if fit and spec.free else FIXED,
                     {**spec.fixed, **result.estimate.params}, result.estimate.lapse,
                     len(run.trials), len(d), result.bits, pooled, d.baseline_bits(),
                     tuple(parts))


def _interval(nats_per_decision: np.ndarray) -> tuple[float, float]:
    """The 95 % percentile interval of bootstrap values (nats per decision) in bits."""
    tail = 100 * (1 - CONFIDENCE) / 2
    low, high = np.percentile(nats_per_decision / math.log(2), [tail, 100 - tail])
    return float(low), float(high)


def _first_choices(run: Results, maze_ids: Any, without: Any = ()) -> dict:
    """{(agent, vision, mark): {direction: count}} of first departures on the given mazes,
    the trials `without` (ids) left out."""
    c = run.choices
    c = c[c["first"] & (c["mark"] != "") & c["maze_id"].isin(set(maze_ids))
          & ~c["trial_id"].isin(set(without))]
    out: dict = {}
    for (a, v, mark, direction), n in c.groupby(["agent", "vision", "mark", "direction"]).size(
            ).items():
        out.setdefault((a, v, mark), {})[direction] = int(n)
    return out


def _per_maze(trials: Any, maze_ids: list[int]) -> np.ndarray:
    """The mean moves on each of `maze_ids` of `trials` (counted trials; NaN without any)."""
    means = trials.groupby("maze_id")["moves"].mean()
    return means.reindex(maze_ids).to_numpy(float)


def format_comparison(c: Comparison) -> str:
    """Markdown tables of a comparison; every text from the runs (names, agents, visions,
    marks, directions, participant ids) escaped (`markup.markdown_text`)."""
    lines = [f"# {_md(c.human_run)} (people) against {_md(c.sim_run)} (agents)", "",
             f"Mazes shared: {len(c.matched)} (human maze id -> simulated maze id: "
             + ", ".join(f"{h}->{s}" for h, s in c.matched.items()) + ")", "",
             "## Bits per junction decision", "",
             "People's departures from cells with 3 or 4 open directions, read by each agent "
             "with the vision the people had; bits = -mean log2 p(chosen), lower is better. "
             "Parameters `fixed` (the simulated run's) or `fitted` (to these people); the "
             "lapse (a uniform choice among the open directions) is always fitted, so no "
             "choice has probability 0. In-sample; `mazesim fit` cross-validates. Interval: "
             "95 % bootstrap over participants.", "",
             "| vision | agent | parameters | lapse | trials | decisions | bits | 95 % CI | "
             "uniform |", "|---|---|---|---:|---:|---:|---:|---|---:|"]
    for x in c.scores:
        params = ", ".join(f"{_md(k)} {_md(_value(v))}" for k, v in x.params.items()) or "none"
        lines.append(f"| {_md(x.vision)} | {_md(x.agent)} | {x.how}: {params} | {x.lapse:.4f} | "
                     f"{x.trials} | {x.decisions} | {x.bits:.3f} | {x.ci[0]:.3f}-"
                     f"{x.ci[1]:.3f} | {x.baseline_bits:.3f} |")
    lines += [f"- not scored: {_md(u)}" for u in c.unscored]
    for v in sorted({x.vision for x in c.scores}):
        best = c.best_agent(v)
        lines += ["", f"Best predictor of people, vision {_md(v)}: **{_md(best.agent)}** "
                  f"({best.bits:.3f} bits per decision)"]
        lines += _participant_table([x for x in c.scores if x.vision == v])
    lines += ["", "## Moves per maze: people against agents", ""] + _moves_table(c)
    lines += ["", "## First choices at the marks", "",
              f"Fisher's exact test per mark; Holm-adjusted over the {_tests(c)} tests made.", "",
              "| vision | agent | mark | agent counts | human counts | Fisher p | Holm p |",
              "|---|---|---|---|---|---:|---:|"]
    for t, adjusted in zip(c.choices, c.holm_p):
        agent = ", ".join(f"{_md(d.direction)} {d.count} ({100 * d.proportion:.0f}%)"
                          for d in t.directions if d.count)
        human = ", ".join(f"{_md(d.direction)} {d.human}" for d in t.directions if d.human)
        tested = (f"{t.fisher_p:.3g} | {adjusted:.3g}" if math.isfinite(t.fisher_p)
                  else f"no test: {t.note} |")
        lines.append(f"| {_md(t.vision)} | {_md(t.agent)} | {_md(t.mark)} | {agent} | {human} | "
                     f"{tested} |")
    return "\n".join(lines) + "\n"


def _participant_table(scores: list[AgentBits]) -> list[str]:
    people = scores[0].participants
    spread = any(x.trials > 1 for x in people)
    lines = ["", "Per participant (bits per decision, " + (
                 "95 % bootstrap interval over their trials; none for one trial):" if spread
                 else "one trial each: no interval):"), "",
             "| participant | trials | decisions | " + " | ".join(_md(x.agent) for x in scores)
             + " |", table_rule("lrr" + "l" * len(scores))]
    for i, p in enumerate(people):
        cells = [f"{x.participants[i].bits:.3f}" + (
                 f" ({x.participants[i].ci[0]:.2f}-{x.participants[i].ci[1]:.2f})"
                 if math.isfinite(x.participants[i].ci[0]) else "") for x in scores]
        lines.append(f"| {_md(p.participant)} | {p.trials} | {p.decisions} | "
                     + " | ".join(cells) + " |")
    return lines


def _moves_table(c: Comparison) -> list[str]:
    """The correlations with an r as a table; the others counted in a line saying why."""
    shown = [r for r in c.correlations if not moves_note(r)]
    lines = ["| vision | agent | method | r | p | n mazes |", "|---|---|---|---:|---:|---:|"]
    lines = lines + [f"| {_md(r.vision)} | {_md(r.agent)} | {r.method} | {r.r:.3f} | {r.p:.3g} | "
                     f"{r.n} |" for r in shown] + [""] if shown else []
    few: dict[tuple[str, int], int] = {}
    for r in c.correlations:
        if r.n < MIN_MAZES[r.method]:
            few[r.vision, r.n] = few.get((r.vision, r.n), 0) + 1
    if few:
        need = ", ".join(f"{m.capitalize()} {n}" for m, n in MIN_MAZES.items())
        lines.append(f"No r where too few mazes have both means ({need}): " + "; ".join(
            f"vision {_md(v)}, {n} maze{'' if n == 1 else 's'} ({k} rows)"
            for (v, n), k in few.items()) + ".")
    constant = [r for r in c.correlations if moves_note(r) and r.n >= MIN_MAZES[r.method]]
    if constant:
        lines.append("No r, a constant column: " + ", ".join(
            f"{_md(r.agent)} ({r.method}, vision {_md(r.vision)})" for r in constant) + ".")
    return lines


def moves_note(r: Correlation) -> str:
    """Why a correlation of moves per maze has no r ("" when it has one)."""
    if r.n < MIN_MAZES[r.method]:
        return (f"too few: {r.n} maze{'' if r.n == 1 else 's'} with both means "
                f"({r.method} needs {MIN_MAZES[r.method]})")
    return "" if math.isfinite(r.r) else "no r: a constant column"


def _finite(value: float) -> float | None:
    """NaN as None (JSON has no NaN)."""
    return None if not math.isfinite(value) else value


def _tests(c: Comparison) -> int:
    return int(np.isfinite(np.asarray(c.holm_p, dtype=float)).sum())


def _value(v: Any) -> str:
    return f"{v:.3g}" if isinstance(v, float) else str(v)
