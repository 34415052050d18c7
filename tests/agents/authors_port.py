"""Test-only transcriptions of the Maze Search Task authors' tree code (`marta-kryven/MST`,
`tree_builder.py`), in our own words, as oracles: the quadrant sweep (`observation_made`), the
search over simple paths (`next_path`) and the breadth-first tree (`maze2tree`).

Maps are rows of the task's codes: 3 wall, 0 and 2 dark floor, 5 the start, 6 lit floor.
Imported by name (`from authors_port import ...`): pytest puts this folder on sys.path.
"""

from __future__ import annotations

from collections import deque

import numpy as np

WALL_CODE, DARK_CODES, START_CODE, LIT_CODE = 3, (0, 2), 5, 6
ORDER = ((0, 1), (0, -1), (1, 0), (-1, 0))          # right, left, down, up


class TooManyPaths(Exception):
    """The simple-path search passed the test's budget (open maps explode)."""


def observation_made(maze, pos):
    """The dark cells the four quadrant sweeps from `pos` meet, and the cells at which a row's
    scan broke off (walls looked at)."""
    observed, broke = set(), set()
    r, c = pos
    nrows, ncols = len(maze), len(maze[0])
    for rows, step in ((range(r, -1, -1), -1), (range(r, -1, -1), 1),
                       (range(r, nrows), -1), (range(r, nrows), 1)):
        bound = 0 if step < 0 else ncols - 1          # c_left = 0 or c_right = ncols - 1
        for r_ in rows:
            columns = []
            for c_ in range(c, bound + step, step):   # from c to the bound, inclusive
                if maze[r_][c_] == WALL_CODE:
                    broke.add((r_, c_))
                    break
                columns.append(c_)
                if maze[r_][c_] in DARK_CODES:
                    observed.add((r_, c_))
            if not columns:
                break
            bound = columns[-1]
    return observed, broke


def update_map(maze, old_pos, new_pos):
    """The map after moving from `old_pos` to `new_pos`: what `new_pos` observes is lit."""
    observed, _ = observation_made(maze, new_pos)
    rows = [[LIT_CODE if (r, c) in observed else v for c, v in enumerate(row)]
            for r, row in enumerate(maze)]
    rows[old_pos[0]][old_pos[1]] = LIT_CODE
    return tuple(tuple(row) for row in rows)


def next_paths(maze, pos, budget):
    """Every simple path from `pos` through cells that observe nothing, to a first cell that
    observes something, breadth-first, neighbours right, left, down, up; a cell reached again
    with the same observation is dropped."""
    nrows, ncols = len(maze), len(maze[0])
    agenda = deque([[pos]])
    seen_at: dict[frozenset, set] = {}
    out = []
    while agenda:
        budget[0] -= 1
        if budget[0] < 0:
            raise TooManyPaths
        path = agenda.popleft()
        r_, c_ = path[-1]
        for dr, dc in ORDER:
            r = max(min(r_ + dr, nrows - 1), 0)   # clipped: at an edge the cell itself,
            c = max(min(c_ + dc, ncols - 1), 0)   # which the path holds
            if maze[r][c] == WALL_CODE or (r, c) in path:
                continue
            observed, _ = observation_made(maze, (r, c))
            if observed:
                key = frozenset(observed)
                if (r, c) in seen_at.get(key, set()):
                    continue
                seen_at.setdefault(key, set()).add((r, c))
                out.append((path + [(r, c)], observed))
            else:
                agenda.append(path + [(r, c)])
    return out


def authors_tree(maze, budget=20_000):
    """The nodes breadth-first: dicts of pos, parent (None at the root), path, remains (the
    authors' count: the root's is every dark cell before it observes), observed."""
    start = next((r, c) for r, row in enumerate(maze) for c, v in enumerate(row)
                 if v == START_CODE)
    remains = sum(v in DARK_CODES for row in maze for v in row)
    root_seen, _ = observation_made(maze, start)
    maze = update_map(maze, start, start)
    nodes = [{"pos": start, "parent": None, "path": [], "remains": remains,
              "observed": root_seen}]
    agenda, left = [(0, maze)], [budget]
    while agenda:
        node, here = agenda.pop(0)
        for path, observed in next_paths(here, nodes[node]["pos"], left):
            nodes.append({"pos": path[-1], "parent": node, "path": path,
                          "remains": nodes[node]["remains"] - len(observed),
                          "observed": observed})
            agenda.append((len(nodes) - 1, update_map(here, path[0], path[-1])))
    return nodes


def codes(grid, start, lit=None):
    """Task codes of a 0/1 grid: walls 3, the start 5, floor 0 (dark) or 6 where `lit`."""
    lit = np.zeros(grid.shape, bool) if lit is None else lit
    rows = [[WALL_CODE if v else (LIT_CODE if d else 0) for v, d in zip(row, drow)]
            for row, drow in zip(grid.tolist(), lit.tolist())]
    rows[start[0]][start[1]] = START_CODE
    return tuple(tuple(row) for row in rows)
