"""A population prior for the peer protocol, estimated from other people only.

The people are dealt into `POPULATION_FOLDS` seeded groups (`population_groups`); the people of
a group get a prior estimated from the people of the other groups, so nothing of a person's
decisions reaches their own prior. `node-choice` gets a Gaussian population over its weights
(`protocol.logit_peer_fit`); a planner with a parameter grid gets, with `prior="population"`,
the nonparametric maximum-likelihood mixing distribution over its grid points
(`mixing_weights`): the weights w maximising sum_p log sum_g w_g L_p(g) over the other people
p, L_p(g) the likelihood of all of p's decisions at grid point g. It replaces the authors' 1/tau
prior rather than multiplying it: the mixing distribution is itself the estimate of how the
parameters, tau among them, are spread over people, so a hand-set prior on tau on top of it
would count that belief twice (and node-choice's population has no hand-set part either).
"""

from __future__ import annotations

import numpy as np

__all__ = ["POPULATION_FOLDS", "POPULATION_STREAM", "PRIORS", "EM_STEPS", "PRIOR_FLOOR",
           "population_groups", "mixing_weights", "population_log_prior"]

POPULATION_FOLDS = 10
"""Groups of people for a population prior under the peer protocol: a person's prior comes
from the people of the other groups (90 % of everyone)."""
POPULATION_STREAM = 2**32 - 2   # spawn key of the groups' draw (the folds use 0, 1, ...)
PRIORS = ("authors", "population")
"""The planners' prior under the peer protocol: the authors' 1/tau, or the population's."""
EM_STEPS = 300
"""EM steps of the mixing distribution, from uniform weights (each step raises the
likelihood; the last steps move the weights little)."""
PRIOR_FLOOR = 1e-3
"""The share of a uniform distribution mixed into the estimated weights, so that no grid
point has prior 0 (each at least PRIOR_FLOOR / grid points)."""


def population_groups(people: int, groups: int, seed: int) -> np.ndarray:
    """The group (0 to `groups` - 1) of each of `people` people (sorted ids): a random
    permutation dealt round, from `SeedSequence(seed, (POPULATION_STREAM,))`."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(POPULATION_STREAM,)))
    group = np.empty(people, dtype=np.int64)
    group[rng.permutation(people)] = np.arange(people) % groups
    return group


def mixing_weights(log_likelihood: np.ndarray, *, steps: int = EM_STEPS,
                   floor: float = PRIOR_FLOOR) -> np.ndarray:
    """The weights (G,) of the grid points by EM on the mixing distribution (module
    docstring), `log_likelihood` (people, G) each person's log-likelihood at every point;
    `steps` EM steps from uniform weights, then `floor` of a uniform mixed in."""
    log_likelihood = np.asarray(log_likelihood, dtype=float)
    people, size = log_likelihood.shape
    scaled = np.exp(log_likelihood - log_likelihood.max(axis=1, keepdims=True))
    w = np.full(size, 1.0 / size)
    for _ in range(steps):
        w = w * (scaled.T @ (1.0 / (scaled @ w))) / people
        w /= w.sum()
    return (1 - floor) * w + floor / size


def population_log_prior(log_likelihood: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Each person's log prior over the grid (people, G): the log `mixing_weights` of the
    people outside the person's group (`log_likelihood` as there, `group` per person)."""
    log_likelihood = np.asarray(log_likelihood, dtype=float)
    out = np.empty_like(log_likelihood)
    for g in np.unique(group):
        inside = group == g
        out[inside] = np.log(mixing_weights(log_likelihood[~inside]))
    return out
