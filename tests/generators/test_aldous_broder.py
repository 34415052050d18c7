"""Aldous-Broder draws uniform spanning trees (the walk may step onto visited rooms)."""

from uniform_trees import TREES, tree_counts, uniformity_pvalue

from mazesim.generators.aldous_broder import aldous_broder


def test_every_spanning_tree_equally_likely():
    assert len(tree_counts(aldous_broder)) == TREES
    assert uniformity_pvalue(aldous_broder) > 0.001
