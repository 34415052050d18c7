"""Sokoban (DESIGN.md section 10): levels, deadlocks, the push search and its reference."""
