"""Rules and their loops (`mazesim.agents.rules`): the stand-in hooks, the flags a rule's hooks
set, one loop per (rule, blind) and a cache key that covers every source a loop compiles in."""

from pathlib import Path

import numpy as np
import pytest

from mazesim.agents import _walk_loop, rules
from mazesim.agents.random_walk import RULE as RANDOM_RULE
from mazesim.agents.rules import Rule, spread, uniform, walk_kernel
from mazesim.agents.search_agents import BFS_RULE


def test_a_rule_s_hooks_set_its_flags_and_stand_ins_fill_the_rest():
    assert (RANDOM_RULE.planner, RANDOM_RULE.observer, RANDOM_RULE.mapped) == (False, False,
                                                                              False)
    assert RANDOM_RULE.reset is rules.no_reset and RANDOM_RULE.target is rules.no_target
    assert BFS_RULE.planner and BFS_RULE.mapped and not BFS_RULE.observer


def test_each_rule_and_blindness_has_its_own_loop_named_after_the_rule():
    blind, mapped = walk_kernel(RANDOM_RULE, True), walk_kernel(RANDOM_RULE, False)
    assert blind is walk_kernel(RANDOM_RULE, True) and blind is not mapped
    assert blind.py_func.__name__.startswith("walk_random_walk_blind_")
    assert mapped.py_func.__name__.startswith("walk_random_walk_mapped_")
    assert blind.py_func.__code__ is _walk_loop.walk_loop.__code__


def test_the_cache_key_covers_the_rule_this_module_and_the_loop_s_module():
    modules = rules._source_modules(BFS_RULE)
    assert {"mazesim.agents.search_agents", "mazesim.agents.rules",
            "mazesim.agents._walk_loop", "mazesim._grid"} <= modules
    name = walk_kernel(BFS_RULE, False).py_func.__name__
    assert name.endswith(rules._sources_digest(BFS_RULE))


def test_uniform_and_spread_share_out_the_candidates():
    out = np.zeros(4)
    uniform(out, np.array([1, 0, 1, 1]))
    np.testing.assert_allclose(out, [1 / 3, 0, 1 / 3, 1 / 3])
    out = np.array([0.0, 1.0, 0.0, 1.0])
    spread(out)
    np.testing.assert_allclose(out, [0, 0.5, 0, 0.5])


@pytest.mark.parametrize("module", [_walk_loop, rules])
def test_an_edit_to_the_loop_or_the_rules_module_changes_the_cache_key(module, monkeypatch):
    before = rules._sources_digest(BFS_RULE)
    edited, read = Path(module.__file__), Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes",
                        lambda path: read(path) + (b"# edited" if path == edited else b""))
    assert rules._sources_digest(BFS_RULE) != before
