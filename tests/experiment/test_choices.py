"""Table 2: shares with Wilson intervals, the exact 2 x k test, the power of the human sample."""

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from scipy import stats

from mazesim.experiment import choices
from mazesim.experiment.choices import (binomial_power, choice_test, exact_test, people_needed,
                                        wilson)


def test_study_table_2_expected_human_counts():
    test = choice_test("weighted-walker", "2", "A", {"up": 66, "right": 34}, {"up": 10, "right": 4})
    up, right = test.directions
    assert (up.direction, right.direction) == ("up", "right")
    assert test.n == 100 and test.human_n == 14
    assert up.proportion == pytest.approx(0.66) and right.proportion == pytest.approx(0.34)
    assert round(up.expected_human, 1) == 9.2 and round(right.expected_human, 1) == 4.8
    assert (up.human, right.human) == (10, 4)
    assert test.test == "exact"
    assert test.fisher_p == pytest.approx(stats.fisher_exact([[66, 34], [10, 4]]).pvalue)
    assert test.fisher_p > 0.5  # the study: "extremely close"


def test_wilson_intervals_of_the_humans_10_of_14():
    share, low, high = wilson(10, 14)
    # Wilson by hand: (k + z^2/2 +- z sqrt(k(n-k)/n + z^2/4)) / (n + z^2)
    z = stats.norm.ppf(0.975)
    centre, half = 10 + z * z / 2, z * np.sqrt(10 * 4 / 14 + z * z / 4)
    assert share == pytest.approx(10 / 14)
    assert (low, high) == pytest.approx(((centre - half) / (14 + z * z),
                                         (centre + half) / (14 + z * z)))
    assert (round(low, 2), round(high, 2)) == (0.45, 0.88)  # the 45 to 88 %
    test = choice_test("w", "2", "A", {"up": 66, "right": 34}, {"up": 10, "right": 4})
    assert (test.directions[0].human_ci_low, test.directions[0].human_ci_high) == (low, high)


@pytest.mark.parametrize("table", [[[66, 34], [10, 4]], [[6703, 3297], [10, 4]],
                                   [[3, 0], [0, 3]], [[5, 1], [1, 5]], [[10, 20], [30, 5]]])
def test_exact_test_of_2x2_is_fishers(table):
    assert exact_test(table) == pytest.approx(stats.fisher_exact(table).pvalue, rel=1e-9)


def _enumerated_p(table):
    """The exact conditional p by brute force in exact arithmetic: every first row with the
    observed column sums and row total, its hypergeometric probability, and the sum over the
    rows no more likely than the observed one."""
    columns = [a + b for a, b in zip(*table)]
    total = sum(table[0])

    def probability(row):
        ways = 1
        for x, c in zip(row, columns):
            ways *= comb(c, x)
        return Fraction(ways, comb(sum(columns), total))

    observed = probability(table[0])
    rows = [r for r in itertools.product(*(range(c + 1) for c in columns)) if sum(r) == total]
    assert sum(probability(r) for r in rows) == 1
    return float(sum(p for p in map(probability, rows) if p <= observed))


@pytest.mark.parametrize("table", [[[3, 4, 5], [1, 2, 6]], [[12, 3, 0], [1, 2, 4]],
                                   [[20, 5, 1], [2, 2, 2]], [[5, 0, 2, 1], [0, 3, 1, 2]]])
def test_exact_test_of_2xk_against_an_enumeration(table):
    assert exact_test(table) == pytest.approx(_enumerated_p(table), rel=1e-9)
    assert exact_test(table[::-1]) == exact_test(table)   # either row may be the smaller one


def test_a_three_direction_table_gives_the_same_p_every_time():
    tests = [choice_test("w", "2", "A", {"up": 60, "right": 30, "down": 10},
                         {"up": 8, "right": 3, "down": 3}) for _ in range(3)]
    assert tests[0].test == "exact" and len({t.fisher_p for t in tests}) == 1
    assert tests[0].fisher_p == pytest.approx(_enumerated_p([[60, 30, 10], [8, 3, 3]]))


def test_large_tables_get_chi_square(monkeypatch):
    monkeypatch.setattr(choices, "MAX_EXACT_TABLES", 10)
    test = choice_test("w", "2", "A", {"up": 60, "right": 30, "down": 10},
                       {"up": 8, "right": 3, "down": 3})
    expected = stats.chi2_contingency([[60, 30, 10], [8, 3, 3]], correction=False).pvalue
    assert test.test == "chi-square" and test.fisher_p == pytest.approx(expected)


def test_power_of_14_people_against_a_coin_flip():
    # scipy's two-sided exact test rejects 50 % at the 5 % level for 0-2 and 12-14 of 14
    reject = [x for x in range(15) if stats.binomtest(x, 14, 0.5).pvalue <= 0.05]
    assert reject == [0, 1, 2, 12, 13, 14]
    expected = sum(stats.binom.pmf(x, 14, 0.66) for x in reject)
    assert binomial_power(14, 0.66, 0.5) == pytest.approx(expected)
    assert round(binomial_power(14, 0.66, 0.5), 3) == 0.096            # "about 10 %"


@pytest.mark.parametrize("n, share, chance", [(14, 0.66, 0.5), (30, 0.4, 1 / 3), (9, 0.9, 0.25)])
def test_power_uses_scipys_rejection_region(n, share, chance):
    reject = [x for x in range(n + 1) if stats.binomtest(x, n, chance).pvalue <= 0.05]
    assert binomial_power(n, share, chance) == pytest.approx(
        sum(stats.binom.pmf(x, n, share) for x in reject))


def test_people_needed_for_80_percent():
    n = people_needed(0.66, 0.5)
    assert n == 79
    assert binomial_power(n, 0.66, 0.5) >= 0.8
    assert all(binomial_power(m, 0.66, 0.5) < 0.8 for m in range(1, n))
    assert people_needed(0.5, 0.5) is None


def test_power_and_people_give_the_numbers_of_the_scan_they_replaced():
    """Computed by the former code (scipy's pmf for every n from 1 on): the same answers, the
    near-chance ones in a fraction of its time (0.52 against 0.5 took 5.3 s)."""
    old_people = {(0.66, 0.5): 79, (0.67, 0.5): 67, (0.55, 0.5): 786, (0.4, 1 / 3): 397,
                  (0.9, 0.25): 5, (0.52, 0.5): 4927, (0.2, 0.25): 548, (1.0, 0.5): 6,
                  (0.0, 1 / 3): 9}
    assert {key: people_needed(*key) for key in old_people} == old_people
    old_power = [0.09640713234012263, 0.11016541422498106, 0.0, 0.13519227295357147,
                 0.10969424439828832, 0.4748168593796215, 0.8060435761794261]
    cases = [(14, 0.66, 0.5), (14, 0.67, 0.5), (1, 0.9, 0.5), (100, 0.55, 0.5),
             (37, 0.4, 1 / 3), (250, 0.2, 0.25), (5000, 0.52, 0.5)]
    assert [binomial_power(*c) for c in cases] == pytest.approx(old_power, rel=1e-10, abs=1e-15)


@settings(max_examples=40)
@given(st.floats(0.02, 0.98), st.sampled_from([1 / 2, 1 / 3, 1 / 4]))
def test_people_needed_is_the_first_n_of_a_full_scan(share, chance):
    """The Neyman-Pearson bound only skips sizes where the exact test cannot reach 80 %."""
    assume(abs(share - chance) > 0.15)
    n = people_needed(share, chance)
    assert n is not None and binomial_power(n, share, chance) >= 0.8
    assert all(binomial_power(m, share, chance) < 0.8 for m in range(1, n))


@settings(max_examples=40)
@given(st.integers(1, 300), st.floats(0, 1), st.sampled_from([1 / 2, 1 / 3, 1 / 4]))
def test_no_exact_test_beats_the_most_powerful_one(n, share, chance):
    assume(share != chance)
    bound = choices._most_powerful(np.array([n]), share, chance, 0.05)[0]
    assert binomial_power(n, share, chance) <= bound + 1e-12


def test_choice_test_reports_power_of_the_human_sample():
    test = choice_test("w", "2", "A", {"up": 66, "right": 34}, {"up": 10, "right": 4})
    power = test.power
    assert (power.direction, power.share, power.chance, power.people) == ("up", 0.66, 0.5, 14)
    assert power.power == pytest.approx(binomial_power(14, 0.66, 0.5))
    assert power.people_for_target == 79


def test_choice_test_lists_directions_chosen_by_either_side():
    test = choice_test("a", "full", "A", {"left": 3}, {"up": 2})
    assert [c.direction for c in test.directions] == ["up", "left"]
    assert [c.count for c in test.directions] == [0, 3]
    assert [c.human for c in test.directions] == [2, None]


@pytest.mark.parametrize("counts, human, note", [
    ({"up": 5, "down": 5}, {}, "no human counts to test against"),
    ({}, {"up": 3}, "no simulated trial left the mark"),
    ({"up": 5}, {"up": 3}, "everyone chose the same direction"),
])
def test_no_test_says_why(counts, human, note):
    test = choice_test("a", "full", "A", counts, human)
    assert test.test == "" and test.note == note and np.isnan(test.fisher_p)
    assert test.power is None


def test_exact_test_refuses_a_table_that_is_not_2_by_k():
    with pytest.raises(ValueError, match=r"shape \(3, 2\)"):
        exact_test([[1, 2], [3, 4], [5, 6]])
