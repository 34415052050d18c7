"""Why experiment 1's fits do not carry over to another run: the exit's display, and which
features of node-choice hold on new maps.

Usage: python experiments/maze-search-task/carry_over.py RUN_FITTED RUN_NEW [--folds 5] [--seed 0]

Prints two Markdown tables:
1. per run, the trials that stand next to the exit and step elsewhere, and the junction
   decisions taken after the run's vision shows the exit, with the share of them on a shortest
   path to it (people who see the exit go to it);
2. variants of node-choice's features: fitted to RUN_FITTED's node decisions (maximum
   likelihood), bits in-sample and cross-validated over groups of maps (`--folds`, the fit's own
   test of new maps), then scored on RUN_NEW with the weights held beside refitted in-sample.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from scipy import optimize

from mazesim.agents.node_features import NODE_FEATURES, child_features
from mazesim.errors import MazesimError, printable
from mazesim.humans import load_human_run
from mazesim.humans.fitting.node_choices import run_node_choices
from mazesim.humans.fitting.node import node_maze_folds

BASE = ("log-steps", "log-cells", "revisit", "reverse")
VARIANTS = {                     # name: features; "log du-G" = -log V of DU at discount G
    "node-choice (five horizons)": ("du-0", "du-0.5", "du-0.7", "du-0.9", "du-1", *BASE),
    "du-0.7": ("du-0.7", *BASE),
    "du-0.5, du-1": ("du-0.5", "du-1", *BASE),
    "log du-0.7": ("log du-0.7", *BASE),
    "log du-0.5, log du-0.9": ("log du-0.5", "log du-0.9", *BASE),
    "log du at five horizons": tuple(f"log du-{g}" for g in ("0", "0.5", "0.7", "0.9", "1"))
    + BASE,
    "log du-0.7, revisit, reverse": ("log du-0.7", "revisit", "reverse"),
}


def exit_display(run) -> tuple[int, int, int, float]:
    """(trials, trials beside the exit that stepped elsewhere, decisions with the exit in view,
    share of those on a shortest path to it)."""
    from mazesim.humans.fitting.models import LogitModel, parse_model

    beside = 0
    for t in run.trials:
        g = run.mazes[t.maze_id].goal
        pos = [tuple(int(v) for v in p) for p in t.positions]
        beside += any(abs(p[0] - g[0]) + abs(p[1] - g[1]) == 1 and q != tuple(g)
                      for p, q in zip(pos, pos[1:]))
    m = LogitModel(parse_model("choice-model"), run, None)
    goal = m.features[:, :, 6] * m.open              # the goal feature of each direction
    seen = goal.sum(axis=1) > 0
    taken = goal[np.arange(len(goal)), run.decisions.chosen] > 0
    return len(run.trials), beside, int(seen.sum()), float(taken[seen].mean())


def _columns(x: np.ndarray, names) -> np.ndarray:
    cols = []
    for name in names:
        if name.startswith("log du-"):
            value = -x[:, NODE_FEATURES.index(name[4:])]           # V > 0, expected steps
            cols.append(-np.log(np.maximum(value, 1e-9)))
        else:
            cols.append(x[:, NODE_FEATURES.index(name)])
    return np.stack(cols, axis=1)


class _Decisions:
    """One run's node decisions as child rows (`x`, the starts and the chosen rows)."""

    def __init__(self, run) -> None:
        self.choices = run_node_choices(run)
        c = self.choices
        self.x = child_features(c.decisions, c.decision, c.walks)
        self.counts = c.children
        self.start = np.concatenate([[0], np.cumsum(self.counts)]).astype(np.int64)
        self.chosen = self.start[:-1] + c.rows - c.decisions.start[c.decision]

    def log_p(self, z: np.ndarray, w: np.ndarray, keep: np.ndarray) -> np.ndarray:
        """log P(chosen) of the decisions `keep` (bool) under weights `w`."""
        u = z @ w
        which = np.repeat(np.arange(len(self.counts)), self.counts)
        top = np.maximum.reduceat(u, self.start[:-1])
        total = np.add.reduceat(np.exp(u - top[which]), self.start[:-1])
        return (u[self.chosen] - top - np.log(total))[keep]

    def fit(self, z: np.ndarray, keep: np.ndarray) -> np.ndarray:
        scale = z.std(axis=0)
        scale[scale == 0] = 1.0
        res = optimize.minimize(lambda w: -self.log_p(z / scale, w, keep).sum() + 5e-5 * w @ w,
                                np.zeros(z.shape[1]), method="BFGS")
        return res.x / scale


def variants(fitted: _Decisions, new: _Decisions, folds: int, seed: int) -> list[tuple]:
    """Per variant: bits in-sample, over held-out map groups, held on `new`, refitted there."""
    fold = node_maze_folds(fitted.choices, folds, seed)
    every_a, every_b = np.ones(len(fold), bool), np.ones(len(new.counts), bool)
    out = []
    for name, names in VARIANTS.items():
        za, zb = _columns(fitted.x, names), _columns(new.x, names)
        held_out = sum(fitted.log_p(za, fitted.fit(za, fold != k), fold == k).sum()
                       for k in range(folds))
        w = fitted.fit(za, every_a)
        bits = [-fitted.log_p(za, w, every_a).mean(), -held_out / len(fold),
                -new.log_p(zb, w, every_b).mean(), -new.log_p(zb, new.fit(zb, every_b),
                                                             every_b).mean()]
        out.append((name, *(b / np.log(2) for b in bits)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fitted")
    parser.add_argument("new")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    try:
        runs = [load_human_run(args.fitted), load_human_run(args.new)]
        print("| run | trials | beside the exit, stepped elsewhere | decisions with the exit "
              "in view | on a shortest path to it |\n|---|---:|---:|---:|---:|")
        for path, run in zip((args.fitted, args.new), runs):
            trials, beside, seen, share = exit_display(run)
            print(f"| {path} | {trials:,} | {beside} ({beside / trials:.1%}) | {seen:,} | "
                  f"{share:.1%} |")
        rows = variants(_Decisions(runs[0]), _Decisions(runs[1]), args.folds, args.seed)
    except MazesimError as err:
        print(f"Error: {printable(err)}", file=sys.stderr)
        sys.exit(2)
    print("\n| node-choice's features | fitted: in-sample | fitted: new map groups (cv) | new "
          "run: held | new run: refitted (in-sample) |\n|---|---:|---:|---:|---:|")
    for name, *bits in rows:
        print(f"| {name} | " + " | ".join(f"{b:.3f}" for b in bits) + " |")


if __name__ == "__main__":
    main()
