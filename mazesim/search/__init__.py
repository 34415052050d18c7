"""Search problems (DESIGN.md section 10): generic search, grid move sets and the puzzles on them."""

from mazesim.search.generic import SearchResult, astar, bfs, dfs, dijkstra
from mazesim.search.knight import knight_distance, knight_path
from mazesim.search.moves import EIGHT, FOUR, KNIGHT, MOVE_SETS, grid_neighbours

__all__ = [
    "SearchResult",
    "bfs",
    "dfs",
    "dijkstra",
    "astar",
    "FOUR",
    "EIGHT",
    "KNIGHT",
    "MOVE_SETS",
    "grid_neighbours",
    "knight_distance",
    "knight_path",
]
