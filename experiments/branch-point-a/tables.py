"""The generated blocks of this folder's README (`python experiments/regenerate.py
branch-point-a`): the walker's first departures from A against the study's, and the power of 14
people, from a run of `configs/study-branch-point.yaml` (a few seconds)."""

from __future__ import annotations

import textwrap

from mazesim.experiment.choices import binomial_power, people_needed, wilson
from mazesim.experiment.tables import choice_tests

CONFIG = "configs/study-branch-point.yaml"
QUICK = True
VOLATILE: tuple[str, ...] = ()
STUDY_UP = 0.66              # the study's walker: 66 of 100 runs went up (section 4.3)
STUDY_PEOPLE = {"up": 10, "right": 4}
CHANCE = 0.5


def blocks(source) -> dict[str, str]:
    tests = [t for t in choice_tests(source.run) if t.mark == "A" and t.n]
    people = sum(STUDY_PEOPLE.values())
    share, low, high = wilson(STUDY_PEOPLE["up"], people)
    rows = ["| | up | right | up % (95 % CI) | of 14 people | exact p vs humans |",
            "|---|---:|---:|---|---|---:|",
            f"| study: walker, 100 runs | 66 | 34 | {100 * STUDY_UP:.1f} | "
            f"{STUDY_UP * people:.1f} / {(1 - STUDY_UP) * people:.1f} | |",
            f"| study: subjects | {STUDY_PEOPLE['up']} | {STUDY_PEOPLE['right']} | "
            f"{100 * share:.1f} ({100 * low:.1f}-{100 * high:.1f}) | 10 / 4 | |"]
    for t in tests:
        by = {c.direction: c for c in t.directions}
        up, right = by["up"], by["right"]
        rows.append(f"| mazesim: `weighted-walker`, {t.n:,} runs | {up.count:,} | "
                    f"{right.count:,} | {100 * up.proportion:.1f} ({100 * up.ci_low:.1f}-"
                    f"{100 * up.ci_high:.1f}) | {up.expected_human:.1f} / "
                    f"{right.expected_human:.1f} | {t.fisher_p:.3f} |")
    largest = max(tests, key=lambda t: t.n)
    walker = next(c for c in largest.directions if c.direction == "up").proportion
    agreement = (f"With {largest.n:,} runs the walker's share of up ({100 * walker:.1f} %) is "
                 f"{abs(100 * (walker - STUDY_UP)):.1f} points from the study's "
                 f"{100 * STUDY_UP:.1f} %; the 100-run figure varies by about +-5 points from "
                 "seed to seed, as a binomial count of 100 does.")
    shares = sorted({STUDY_UP, walker})
    power = {s: binomial_power(people, s, CHANCE) for s in shares}
    needed = {s: people_needed(s, CHANCE) for s in shares}
    p_values = sorted({round(t.fisher_p, 3) for t in tests})
    text = (f"**What {people} people can show.** Neither run differs from the subjects (p = "
            + " and ".join(f"{p:.3f}" for p in p_values) + "), but that says little: the "
            f"subjects' own share, {STUDY_PEOPLE['up']} of {people}, has a 95 % interval of "
            f"{100 * low:.0f} to {100 * high:.0f} %. Had {people} people gone up as often as "
            f"the walker ({_span(shares, 100, '.0f')} %), a two-sided exact binomial test at "
            f"the 5 % level would tell them from a coin flip with probability "
            f"{_span([power[s] for s in shares], 100, '.0f')} % ("
            + ", ".join(f"{100 * power[s]:.1f} % at {_label(s)}" for s in shares)
            + f"); 80 % power needs {_span([needed[s] for s in shares], 1, 'd')} people ("
            + ", ".join(f"{needed[s]} at {_label(s)}" for s in shares)
            + "; the exact test's power is not monotone in n). The agreement of 10 / 4 with "
            f"{STUDY_UP * people:.1f} / {(1 - STUDY_UP) * people:.1f} that the study calls "
            "\"extremely close\" is therefore what almost any walker with a moderate "
            "preference for up would show.")
    return {"result": "\n".join(rows) + "\n\n" + _fill(agreement), "power": _fill(text)}


def _fill(paragraph: str) -> str:
    """The paragraph in lines of at most 100 characters, a number kept with its " %"."""
    glued = paragraph.replace(" %", "\u00a0%")
    return textwrap.fill(glued, 100, break_on_hyphens=False).replace("\u00a0%", " %") + "\n"


def _span(values, scale, spec) -> str:
    low, high = min(values), max(values)
    a, b = format(low * scale if spec != "d" else low, spec), \
        format(high * scale if spec != "d" else high, spec)
    return a if a == b else f"{a} to {b}"


def _label(share: float) -> str:
    return "the study's 66 %" if share == STUDY_UP else f"{100 * share:.1f} %"
