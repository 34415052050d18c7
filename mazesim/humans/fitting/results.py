"""What a fit gives: one estimate (`Estimate`), one person under one model (`ParticipantFit`),
one model (`ModelFit`: the pooled estimate, its errors and intervals, the cross-validated bits
with their interval over people) and every model of a run (`FitReport`), at any level of
decisions, and their JSON."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from mazesim.agents.base import LOG
from mazesim.experiment.statistics import CONFIDENCE
from mazesim.humans.data.run import bits
from mazesim.humans.fitting.ranking import Ranking
from mazesim.markup import json_interval, json_number

__all__ = ["BY", "WEIGH", "PARTICIPANTS", "MAZE_GROUPS", "Estimate", "ParticipantFit",
           "ModelFit", "FitReport"]

BY = ("pooled", "participant")
PARTICIPANTS, MAZE_GROUPS = "participants", "maze groups"   # what cross-validation folds
WEIGH = ("decision", "person")
"""How the pooled likelihood counts people: every decision once, or every person once (each
decision weighted by the number of decisions over the people with one, divided by its
person's: the population's mean where people differ, `likelihood.person_weights`)."""


@dataclass(frozen=True)
class Estimate:
    """One maximum-likelihood fit: parameters (natural scale), lapse, and the natural-log
    likelihood of the decisions it was fitted to."""

    params: dict[str, float]
    lapse: float
    log_likelihood: float
    decisions: int
    converged: bool = True
    """False when an optimiser stopped without reporting success (an iteration limit, a
    failed line search): the estimate is then the best point it reached, not a maximum."""

    @property
    def bits(self) -> float:
        return bits(self.log_likelihood, self.decisions)


@dataclass(frozen=True)
class ParticipantFit:
    """One participant under one model: decisions, cross-validated bits (scored by the model
    fitted without their fold), with `by="participant"` their own fit, and their bits under
    the pooled estimate (`pooled_bits`)."""

    participant: str
    decisions: int
    cv_bits: float | None
    own: Estimate | None = None
    pooled_bits: float | None = None


@dataclass(frozen=True, kw_only=True)
class ModelFit:
    """One model's fit: pooled estimate, information criteria, cross-validated bits."""

    model: str
    agent: str
    estimate: Estimate
    k: int
    cv_bits: float | None
    cv_bits_ci: tuple[float, float] | None
    participants: tuple[ParticipantFit, ...] = field(repr=False, default=())
    log_probs: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    """The natural log of p(chosen) at each decision under the pooled estimate."""
    cv_log_probs: np.ndarray | None = field(repr=False, default=None)
    """... and under the fit without the decision's fold (None without cross-validation)."""
    errors: dict[str, float] = field(default_factory=dict)
    """The standard errors of the intervals (parameters on their search scale, and `lapse`):
    the larger of `cluster_errors` and `model_errors` (Angrist and Pischke 2009, section 8.1:
    the sandwich is biased down with few clusters, and collapses where the likelihood is flat);
    NaN at a bound or where the information is singular."""
    scales: dict[str, str] = field(default_factory=dict)
    model_errors: dict[str, float] = field(default_factory=dict)
    """From the observed information alone (every decision taken as independent)."""
    cluster_errors: dict[str, float] = field(default_factory=dict)
    """Cluster-robust by participant: the sandwich (`cluster_covariance`); NaN with one
    participant (`errors` are then the observed information's)."""
    not_converged: tuple[str, ...] = ()
    """The fits whose optimiser did not converge: "pooled", "fold F", "participant ID"."""

    def interval(self, name: str, confidence: float = CONFIDENCE) -> tuple[float, float]:
        """The Wald interval of a parameter (or `lapse`) on its natural scale (`errors`)."""
        value = self.estimate.lapse if name == "lapse" else self.estimate.params[name]
        error = self.errors.get(name, float("nan"))
        z = stats.norm.ppf(0.5 + confidence / 2) * error
        if self.scales.get(name) == LOG:
            return value * 10.0 ** -z, value * 10.0 ** z
        return value - z, value + z

    @property
    def converged(self) -> bool:
        return not self.not_converged

    @property
    def bits(self) -> float:
        return self.estimate.bits

    @property
    def aic(self) -> float:
        return 2 * self.k - 2 * self.estimate.log_likelihood

    @property
    def bic(self) -> float:
        """k log(n) - 2 log L with n = the decisions (`bic_n` in the JSON)."""
        return self.k * math.log(self.estimate.decisions) - 2 * self.estimate.log_likelihood

    def to_json(self) -> dict:
        names = [*self.estimate.params, "lapse"]
        return {"model": self.model, "params": self.estimate.params,
                "lapse": self.estimate.lapse, "bits": self.bits, "cv_bits": self.cv_bits,
                "cv_bits_ci": None if self.cv_bits_ci is None else list(self.cv_bits_ci),
                "aic": self.aic, "bic": self.bic, "bic_n": self.estimate.decisions,
                "params_ci": {name: json_interval(self.interval(name)) for name in names},
                "params_se": {name: json_number(self.errors.get(name)) for name in names},
                "params_se_cluster": {name: json_number(self.cluster_errors.get(name))
                                      for name in names},
                "params_se_model": {name: json_number(self.model_errors.get(name))
                                    for name in names},
                "converged": self.converged, "not_converged": list(self.not_converged)}

    def participants_json(self) -> list[dict]:
        """Each participant: decisions, cross-validated bits, and their own fit if any."""
        return [{"participant": p.participant, "decisions": p.decisions, "cv_bits": p.cv_bits,
                 "pooled_bits": p.pooled_bits, **({} if p.own is None else {
                     "lapse": p.own.lapse, "bits": p.own.bits, "params": p.own.params,
                     "converged": p.own.converged})}
                for p in self.participants]


@dataclass(frozen=True)
class FitReport:
    """Every model fitted to a run, best first (by cross-validated bits, else in-sample).
    With `params_from`, the models were not fitted but scored with the parameters of another
    fit (`score_run`): the lapse held, or refitted with `refit_lapse`."""

    run: str
    decisions: int
    participants: int
    baseline_bits: float
    folds: int
    seed: int
    by: str
    models: tuple[ModelFit, ...]
    params_from: str | None = None
    refit_lapse: bool = False
    folds_over: str = "participants"
    """What the cross-validation's folds deal: `participants` (new people) or `maze groups`
    (new mazes, `mazesim.humans.fitting.folds`)."""
    level: str = "junction"
    """The decisions fitted (`humans.data.run.LEVELS`)."""
    ranking: Ranking | None = None
    """The models compared over people (`ranking.rank_fitted`), or None ..."""
    ranking_note: str = ""
    """... and why not."""
    prior: str | None = None
    """The per-person fits' prior under the node level's peer protocol
    (`mazesim.humans.peer.population.PRIORS`); None for a fit without one."""

    @property
    def warnings(self) -> list[str]:
        """One line per model whose optimiser did not converge somewhere."""
        return [f"{m.model}: the optimiser did not converge ({', '.join(m.not_converged[:5])}"
                f"{', ...' if len(m.not_converged) > 5 else ''}; raise max_iterations)"
                for m in self.models if m.not_converged]

    def to_json(self) -> dict:
        out = {"level": self.level, "decisions": self.decisions,
               "participants": self.participants, "baseline_bits": self.baseline_bits,
               "folds_over": self.folds_over,
               "params_ci_method": ("95 % Wald, the larger of the cluster-robust (by participant) "
                                    "and observed-information errors"),
               "converged": not self.warnings, "warnings": self.warnings,
               "models": [m.to_json() for m in self.models]}
        out["ranking"] = None if self.ranking is None else self.ranking.to_json()
        if self.ranking is None:
            out["ranking_note"] = self.ranking_note
        if self.params_from is not None:
            out.update(params_from=self.params_from, refit_lapse=self.refit_lapse)
        if self.prior is not None:
            out["prior"] = self.prior
        if self.by == "participant":
            for entry, m in zip(out["models"], self.models):
                entry["participants"] = m.participants_json()
        return out
