"""Wilson's algorithm draws uniform spanning trees."""

from uniform_trees import TREES, tree_counts, uniformity_pvalue

from mazesim.generators.binary_tree import binary_tree
from mazesim.generators.wilson import wilson


def test_every_spanning_tree_equally_likely():
    assert len(tree_counts(wilson)) == TREES
    assert uniformity_pvalue(wilson) > 0.001


def test_the_check_rejects_a_biased_generator():
    assert uniformity_pvalue(binary_tree) < 1e-6
