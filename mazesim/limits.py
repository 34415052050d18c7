"""Ceilings on every size and count a user can ask for, checked before any work starts.

Each limit is named once here; the readers and validators that enforce it name the limit in
their message (and, when output would not fit, the estimate). They are set so that honest
research use never meets them and hostile or mistyped input cannot hang the program or take
gigabytes. Limits that concern one reader only live beside it (`schema.MAX_NODES`,
`search.sokoban.level.MAX_LEVEL_CELLS`, ...); docs/definitions.md, "Ceilings", lists them.
"""

__all__ = ["INT64_MAX", "MAX_WALKS", "MAX_WORKERS", "MAX_FOLDS", "MAX_STARTS", "MAX_ITERATIONS",
           "MAX_FILE_BYTES", "MAX_NESTING", "MAX_MAZE_CELLS", "MAX_VISION_RADIUS",
           "MAX_STEPS", "MAX_TRIALS", "MAX_KEPT_MOVES", "MAX_IMAGE_PIXELS", "gigabytes"]

INT64_MAX = 2**63 - 1
"""Largest seed, id or count: what the results database (SQLite) and the kernels (int64) hold."""

MAX_FILE_BYTES = 64 << 20
"""Largest input file read (64 MiB): a 5,001 x 5,001 maze is 25 MB of text."""

MAX_NESTING = 64
"""Deepest nesting of lists and mappings in a YAML config or a JSON file (hand-written data
nests a few levels; Python's parsers recurse, and a deep document is a stack bomb)."""

MAX_MAZE_CELLS = 5_001 * 5_001
"""Largest maze grid, read or generated: 25 million cells. Parameters of such a maze take about
0.8 GB and a few seconds; every per-cell array of the agents and the analysis stays below 1 GB."""

MAX_VISION_RADIUS = 10_000
"""Largest window half-width or isovist radius (a window wider than any maze sees it all)."""

MAX_STEPS = 10**9
"""Most moves of one trial (`max_steps`): minutes of walking at most, and below 2^31 (visit
counts are int32). The default, 50 x passage cells, stays below it for every maze up to
`MAX_MAZE_CELLS`."""

MAX_TRIALS = 10**6
"""Most trials of one batch (`simulate_many`, `mazesim simulate --trials`, an agent's `trials`
in one cell of a sweep): the per-trial arrays and the per-trial report take about 0.6 GB."""

MAX_KEPT_MOVES = 25_000_000
"""Most moves whose positions one batch may keep, trials x max_steps (the worst case, refused
before walking): about 45 bytes a move while walking, 1.1 GB; 1,000 trials of a 31x31 maze at
the default max_steps are 24 million."""

MAX_IMAGE_PIXELS = 100_000_000
"""Largest picture (10,000 x 10,000 pixels, 0.3 GB as RGB, twice that while drawing)."""


def gigabytes(nbytes: float) -> str:
    """`nbytes` for a message: "7.0 GB", "0.3 GB" (decimal gigabytes, one decimal)."""
    return f"{nbytes / 1e9:,.1f} GB"

MAX_WORKERS = 1024
"""Most local worker processes of a run or a predictive check (a run takes at most
`experiment.executors.WORKERS_PER_CORE` per core and one per task start)."""

MAX_WALKS = 10_000
"""Most walks of a fitted model per person and maze (`mazesim predict`, `mazesim transfer`)."""

MAX_FOLDS = 100
"""Most folds of a cross-validation, over people or over groups of mazes."""
MAX_STARTS = 50
"""Most starts of one optimisation of a fit."""
MAX_ITERATIONS = 100_000
"""Most iterations of one optimiser run of a fit."""
