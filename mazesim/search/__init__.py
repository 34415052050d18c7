"""Search problems (DESIGN.md section 10): generic search, move sets and the puzzles on them."""

from mazesim.search.generic import SearchResult, astar, bfs, dfs, dijkstra
from mazesim.search.knight import knight_distance, knight_path
from mazesim.search.moves import EIGHT, FOUR, KNIGHT, MOVE_SETS, grid_neighbours
from mazesim.search.pursuit import Chase, chase, chase_text, place_chasers
from mazesim.search.sokoban import (Level, SokobanResult, Stage, parse_levels, read_level,
                                    read_levels, verify_solution)
from mazesim.search.sokoban import solve as solve_sokoban
from mazesim.search.terrain import (
    TerrainRoute,
    cost_to_goal,
    parse_costs,
    read_costs,
    terrain_route,
)

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
    "TerrainRoute",
    "parse_costs",
    "read_costs",
    "cost_to_goal",
    "terrain_route",
    "Chase",
    "chase",
    "place_chasers",
    "chase_text",
    "Level",
    "parse_levels",
    "read_levels",
    "read_level",
    "verify_solution",
    "Stage",
    "SokobanResult",
    "solve_sokoban",
]
