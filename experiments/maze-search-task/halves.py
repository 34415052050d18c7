"""Split a run of people into two halves of the people and two halves of the maps, for fitting on
one half and scoring on the other (`mazesim fit --params`).

Usage: python experiments/maze-search-task/halves.py RUN OUT

People: the sorted ids, alternately to A and B. Maps: a map and its mirror (`NAME_mirror`) stay
together; the sorted families go alternately to A and B. Writes into OUT: `people-A.txt` and
`people-B.txt` (the ids of each half, for `--exclude-participants`) and `mazes-A.txt` and
`mazes-B.txt` (`--exclude-maze NAME` for each map of the half, to paste on a command line).
"""

from __future__ import annotations

from pathlib import Path

from mazesim.agents.trees import maze_name
from mazesim.humans import load_human_run
from script_args import Parser, run_script


def main() -> None:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("out")
    args = parser.parse_args()
    run = load_human_run(args.run)
    people = sorted(run.participants)
    mazes = sorted({maze_name(m) for m in run.mazes.values()})
    families = sorted({m.removesuffix("_mirror") for m in mazes})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for i, half in enumerate("AB"):
        (out / f"people-{half}.txt").write_text("\n".join(people[i::2]) + "\n")
        chosen = [m for m in mazes if families.index(m.removesuffix("_mirror")) % 2 == i]
        (out / f"mazes-{half}.txt").write_text(" ".join(f"--exclude-maze {m}" for m in chosen))
    print(f"{len(people)} people, {len(mazes)} maps ({len(families)} families) into {out}")


if __name__ == "__main__":
    run_script(main)
