"""Rewrite the generated blocks of an experiment's README from what the code gives now.

    python experiments/regenerate.py first-experiment                # run its config, rewrite
    python experiments/regenerate.py first-experiment --run results/study-first-experiment/<id>
    python experiments/regenerate.py branch-point-a --check          # exit 1 if a block differs

An experiment folder takes part with a `tables.py` beside its README. The README marks each
generated block with `<!-- begin: NAME -->` and `<!-- end: NAME -->` lines (invisible in the
rendered page); `tables.blocks(source)` gives the text of every block from a `Source` (the run's
`load_run` tables and how long it took). `tables.CONFIG` is the config it runs (relative to the
repository), `tables.QUICK` says whether that takes under a minute (then
`tests/test_experiments.py` checks the README against the code), `tables.VOLATILE` names the
blocks that depend on the machine (timings: never checked). An experiment whose numbers do not
come from one config (an import and fits) can give `tables.source(output)` instead.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
README = "README.md"
TABLES = "tables.py"
_BLOCK = re.compile(r"^<!-- begin: (?P<name>[\w-]+) -->\n(?P<text>.*?)^<!-- end: (?P=name) -->$",
                    re.M | re.S)


@dataclass(frozen=True)
class Source:
    """What the blocks are computed from: the run (`load_run`), its directory, and the seconds
    the sweep and the report took when this script ran them (None for an existing run)."""

    run: Any
    run_dir: Path
    sweep_seconds: float | None = None
    report_seconds: float | None = None

    def timing(self) -> str:
        """"the sweep took N s and the report M s on C cores (load L)", or "" without times."""
        if self.sweep_seconds is None:
            return ""
        cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                 else os.cpu_count())
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        return (f"the sweep took {self.sweep_seconds:.0f} s and the report "
                f"{self.report_seconds:.0f} s on {cores} cores (load average {load:.1f} at the "
                "end)")


def experiment(name: str) -> ModuleType:
    """The `tables` module of experiments/<name>."""
    path = EXPERIMENTS / name / TABLES
    if not path.is_file():
        have = sorted(p.parent.name for p in EXPERIMENTS.glob(f"*/{TABLES}"))
        raise SystemExit(f"experiments/{name}: no {TABLES} (experiments with one: "
                         f"{', '.join(have)})")
    key = f"experiments_{name.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(key, path)
    module = sys.modules.setdefault(key, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module


def produce(tables: ModuleType, run_dir: Path | None = None, output: Path | None = None
            ) -> Source:
    """The source of an experiment's blocks: an existing run, or its config run into `output`
    (timed: the sweep, then the report)."""
    from mazesim import load_run

    if run_dir is not None:
        return Source(load_run(run_dir), Path(run_dir))
    if hasattr(tables, "source"):
        return tables.source(output)
    from mazesim.experiment.config import load_config
    from mazesim.experiment.report import build_report
    from mazesim.experiment.runner import run_experiment

    config = load_config(ROOT / tables.CONFIG)
    clock = time.perf_counter()
    result = run_experiment(config, output=output, workers=min(2, os.cpu_count() or 1),
                            report=False)
    sweep = time.perf_counter() - clock
    clock = time.perf_counter()
    build_report(result.run_dir)
    return Source(load_run(result.run_dir), result.run_dir, sweep, time.perf_counter() - clock)


def blocks_of(text: str) -> dict[str, str]:
    """The generated blocks of a README by name (their text without the marker lines)."""
    return {m["name"]: m["text"] for m in _BLOCK.finditer(text)}


def rewrite(text: str, blocks: dict[str, str]) -> str:
    """`text` with each marked block replaced by `blocks[name]`; every marked block must have
    one and every block a mark."""
    marked = blocks_of(text)
    if set(marked) != set(blocks):
        raise SystemExit(f"blocks marked in the README {sorted(marked)} are not those the "
                         f"tables give {sorted(blocks)}")
    return _BLOCK.sub(lambda m: f"<!-- begin: {m['name']} -->\n"
                      f"{blocks[m['name']].rstrip(chr(10))}\n<!-- end: {m['name']} -->", text)


def differences(name: str, source: Source) -> list[str]:
    """The blocks of experiments/<name>/README.md that differ from what the code gives now
    (volatile blocks left out)."""
    tables = experiment(name)
    readme = blocks_of((EXPERIMENTS / name / README).read_text(encoding="utf-8"))
    now = tables.blocks(source)
    return [block for block, text in now.items() if block not in tables.VOLATILE
            and readme.get(block, "").rstrip("\n") != text.rstrip("\n")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", help="a folder of experiments/ with a tables.py")
    parser.add_argument("--run", type=Path, help="use this run directory instead of running")
    parser.add_argument("--output", type=Path, help="results root for the run (default: a "
                        "temporary folder, removed after)")
    parser.add_argument("--check", action="store_true",
                        help="do not write: list the blocks that differ, exit 1 if any")
    args = parser.parse_args(argv)
    tables = experiment(args.experiment)
    with tempfile.TemporaryDirectory() as scratch:
        source = produce(tables, args.run, args.output or Path(scratch))
        if args.check:
            stale = differences(args.experiment, source)
            print("stale: " + ", ".join(stale) if stale else "up to date")
            return 1 if stale else 0
        path = EXPERIMENTS / args.experiment / README
        path.write_text(rewrite(path.read_text(encoding="utf-8"), tables.blocks(source)),
                        encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)} from {source.run_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
