"""Which model explains people best, over people: paired differences, best-model counts and a
random-effects model comparison, from each person's log-likelihood under each model.

Two models' separate intervals set side by side say little (the same people make both); what a
reader wants is the difference, person by person. From a (people x models) table of natural-log
likelihoods (cross-validated, so that a model's parameters are not rewarded) and each person's
number of decisions:

- **paired differences**: each model against the best (lowest pooled bits): the difference in
  bits per decision (pooled: summed over people, divided by all decisions), a percentile interval
  by bootstrap over people, how many people each way, and a two-sided Wilcoxon signed-rank test
  of the per-person differences in bits per decision, Holm-adjusted over the models compared;
- **best-model counts**: for how many people each model has the highest likelihood (a tie
  splits the person between the tied models);
- **random-effects Bayesian model selection** (Stephan et al. 2009, NeuroImage 46:1004;
  Rigoux et al. 2014, NeuroImage 84:971): each person's log-likelihood taken as the log evidence
  of each model, the variational posterior over model frequencies (a Dirichlet), the expected
  frequencies, the exceedance probabilities (the posterior probability that a model is more
  frequent than every other, by seeded Monte Carlo over the Dirichlet) and the protected
  exceedance probabilities (corrected by the Bayesian omnibus risk, the posterior probability
  that all models are equally frequent).

Everything random flows from `seed` through numpy's SeedSequence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy import special, stats

from mazesim.errors import DataError, check_seed

__all__ = ["PairedDifference", "ModelFrequencies", "Ranking", "rank_models", "rank_fitted",
           "model_frequencies", "BOOTSTRAP_SAMPLES", "DIRICHLET_SAMPLES", "CONFIDENCE",
           "MAX_PEOPLE", "MAX_MODELS"]

BOOTSTRAP_SAMPLES = 2000
DIRICHLET_SAMPLES = 100_000
CONFIDENCE = 0.95
MAX_PEOPLE = 1_000_000
MAX_MODELS = 100
_VB_TOLERANCE = 1e-10
_VB_STEPS = 10_000
_BOOTSTRAP_STREAM, _DIRICHLET_STREAM = 0, 1


@dataclass(frozen=True)
class PairedDifference:
    """`model` against `best`: how many bits per decision worse (pooled; > 0 is worse) with a
    bootstrap interval over people, the people each way, and the test."""

    model: str
    best: str
    bits: float
    ci: tuple[float, float]
    worse: int
    better: int
    p: float
    p_adjusted: float

    def to_json(self) -> dict:
        return {"model": self.model, "best": self.best, "bits": self.bits,
                "ci": list(self.ci), "people_worse": self.worse, "people_better": self.better,
                "p": self.p, "p_adjusted": self.p_adjusted}


@dataclass(frozen=True)
class ModelFrequencies:
    """Random-effects model selection: the Dirichlet posterior `alpha` over model frequencies,
    the expected frequencies, exceedance and protected exceedance probabilities, the Bayesian
    omnibus risk."""

    alpha: tuple[float, ...]
    expected: tuple[float, ...]
    exceedance: tuple[float, ...]
    protected: tuple[float, ...]
    omnibus_risk: float


@dataclass(frozen=True)
class Ranking:
    """Models compared over the same people (`rank_models`)."""

    models: tuple[str, ...]
    people: int
    decisions: int
    bits: tuple[float, ...]
    best: str
    paired: tuple[PairedDifference, ...]
    best_counts: tuple[float, ...]
    frequencies: ModelFrequencies

    def to_json(self) -> dict:
        f = self.frequencies
        return {"people": self.people, "decisions": self.decisions, "best": self.best,
                "paired": [d.to_json() for d in self.paired],
                "models": [{"model": m, "bits": b, "best_for": c, "expected_frequency": e,
                            "exceedance": x, "protected_exceedance": px}
                           for m, b, c, e, x, px in zip(self.models, self.bits,
                                                        self.best_counts, f.expected,
                                                        f.exceedance, f.protected)],
                "omnibus_risk": f.omnibus_risk}


def rank_models(models: Sequence[str], log_likelihood: np.ndarray, decisions: np.ndarray, *,
                seed: int = 0) -> Ranking:
    """Compare `models` over people.

    Parameters
    ----------
    log_likelihood : array (people, models)
        Each person's natural-log likelihood under each model (cross-validated).
    decisions : array (people,)
        Each person's number of decisions (> 0).
    """
    ll, n = _check(models, log_likelihood, decisions, seed)
    people, k = ll.shape
    total = int(n.sum())
    pooled = -ll.sum(axis=0) / total / math.log(2)
    best = int(np.argmin(pooled))
    root = np.random.SeedSequence(seed)
    rng = np.random.default_rng(root.spawn(2)[_BOOTSTRAP_STREAM])
    samples = rng.integers(0, people, size=(BOOTSTRAP_SAMPLES, people))
    sample_n = n[samples].sum(axis=1)
    paired, p_values = [], []
    for m in range(k):
        if m == best:
            continue
        gap = (ll[:, best] - ll[:, m]) / math.log(2)          # bits the model loses, per person
        boot = gap[samples].sum(axis=1) / sample_n
        tail = 100 * (1 - CONFIDENCE) / 2
        per_decision = gap / n
        p = _wilcoxon(per_decision)
        p_values.append(p)
        paired.append((m, float(gap.sum() / total),
                       (float(np.percentile(boot, tail)), float(np.percentile(boot, 100 - tail))),
                       int(np.sum(per_decision > 0)), int(np.sum(per_decision < 0)), p))
    adjusted = _holm(p_values)
    diffs = tuple(PairedDifference(models[m], models[best], b, ci, w, bt, p, a)
                  for (m, b, ci, w, bt, p), a in zip(paired, adjusted))
    top = ll.max(axis=1, keepdims=True)
    ties = ll >= top - 1e-9 * np.maximum(1.0, np.abs(top))
    counts = (ties / ties.sum(axis=1, keepdims=True)).sum(axis=0)
    freq = model_frequencies(ll, seed=seed)
    return Ranking(tuple(models), people, total, tuple(float(b) for b in pooled), models[best],
                   diffs, tuple(float(c) for c in counts), freq)


def rank_fitted(fits: Sequence, *, held_out: bool = False, seed: int = 0
                ) -> tuple[Ranking | None, str]:
    """`rank_models` over the people of fitted models (`fit.ModelFit`s of one report: the same
    people in the same order), from each person's held-out bits: cross-validated (`cv_bits`),
    or, with `held_out`, under parameters fitted on other data (`pooled_bits` of a scored fit).
    (None, the reason) when there is nothing to compare; the reason is "" otherwise."""
    if len(fits) < 2:
        return None, "one model: nothing to compare"
    if not held_out and fits[0].cv_bits is None:
        return None, ("no paired comparison without cross-validation: each person's bits "
                      "under parameters fitted to them reward the models with more parameters")
    people = [i for i, p in enumerate(fits[0].participants) if p.decisions > 0]
    if len(people) < 2:
        return None, "fewer than two people with decisions: nothing to compare over people"
    key = "pooled_bits" if held_out else "cv_bits"
    n = np.array([fits[0].participants[i].decisions for i in people], np.int64)
    bits = np.array([[getattr(m.participants[i], key) for i in people] for m in fits],
                    np.float64).T
    ll = np.minimum(-bits * n[:, None] * math.log(2), 0.0)
    return rank_models([m.model for m in fits], ll, n, seed=seed), ""


def model_frequencies(log_evidence: np.ndarray, *, seed: int = 0) -> ModelFrequencies:
    """Random-effects Bayesian model selection over a (people, models) table of log evidences
    (Stephan et al. 2009's variational scheme, a flat Dirichlet prior; Rigoux et al. 2014's
    protected exceedance probabilities)."""
    L = np.asarray(log_evidence, np.float64)
    people, k = L.shape
    alpha0 = np.ones(k)
    alpha = alpha0.copy()
    for _ in range(_VB_STEPS):
        u = L + special.digamma(alpha) - special.digamma(alpha.sum())
        g = np.exp(u - special.logsumexp(u, axis=1, keepdims=True))
        new = alpha0 + g.sum(axis=0)
        if np.max(np.abs(new - alpha)) < _VB_TOLERANCE:
            alpha = new
            break
        alpha = new
    u = L + special.digamma(alpha) - special.digamma(alpha.sum())
    g = np.exp(u - special.logsumexp(u, axis=1, keepdims=True))
    e_log_r = special.digamma(alpha) - special.digamma(alpha.sum())
    entropy = -np.sum(g * np.log(np.maximum(g, 1e-300)))
    f1 = float(np.sum(g * (L + e_log_r)) + entropy - _dirichlet_kl(alpha, alpha0))
    f0 = float(np.sum(special.logsumexp(L, axis=1) - math.log(k)))
    risk = float(1.0 / (1.0 + math.exp(min(f1 - f0, 700.0))))
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[_DIRICHLET_STREAM])
    draws = rng.dirichlet(alpha, size=DIRICHLET_SAMPLES)
    exceedance = np.bincount(draws.argmax(axis=1), minlength=k) / DIRICHLET_SAMPLES
    protected = (1.0 - risk) * exceedance + risk / k
    return ModelFrequencies(tuple(map(float, alpha)), tuple(map(float, alpha / alpha.sum())),
                            tuple(map(float, exceedance)), tuple(map(float, protected)), risk)


def _dirichlet_kl(alpha: np.ndarray, alpha0: np.ndarray) -> float:
    """KL(Dir(alpha) || Dir(alpha0))."""
    total = alpha.sum()
    return float(special.gammaln(total) - special.gammaln(alpha).sum()
                 - special.gammaln(alpha0.sum()) + special.gammaln(alpha0).sum()
                 + np.sum((alpha - alpha0) * (special.digamma(alpha) - special.digamma(total))))


def _wilcoxon(differences: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p of per-person differences (1.0 when all are zero)."""
    if not np.any(differences != 0):
        return 1.0
    return float(stats.wilcoxon(differences, zero_method="wilcox").pvalue)


def _holm(p: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (`experiment.statistics.holm`)."""
    from mazesim.experiment.statistics import holm

    return [float(v) for v in holm(p)] if len(p) else []


def _check(models: Sequence[str], log_likelihood: np.ndarray, decisions: np.ndarray, seed: int
           ) -> tuple[np.ndarray, np.ndarray]:
    ll = np.asarray(log_likelihood, np.float64)
    n = np.asarray(decisions, np.int64)
    if ll.ndim != 2 or ll.shape[1] != len(models):
        raise DataError(f"log_likelihood: shape {ll.shape} (allowed: (people, {len(models)}), "
                        "one column per model)")
    if not 2 <= len(models) <= MAX_MODELS:
        raise DataError(f"models: {len(models)} (allowed: 2 to {MAX_MODELS})")
    if len(set(models)) != len(models):
        raise DataError("models: a model named twice")
    if not 2 <= ll.shape[0] <= MAX_PEOPLE:
        raise DataError(f"log_likelihood: {ll.shape[0]} people (allowed: 2 to {MAX_PEOPLE:,})")
    if n.shape != (ll.shape[0],) or np.any(n <= 0):
        raise DataError("decisions: one count > 0 per person")
    if not np.all(np.isfinite(ll)) or np.any(ll > 0):
        raise DataError("log_likelihood: every value finite and <= 0")
    check_seed(seed, DataError)
    return ll, n
