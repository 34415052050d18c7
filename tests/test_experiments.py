"""The experiments' write-ups: their generated blocks (`experiments/regenerate.py`) are marked,
and those of the quick experiments equal what the code gives now."""

import importlib.util
import sys
from pathlib import Path

import pytest

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
_spec = importlib.util.spec_from_file_location("regenerate", EXPERIMENTS / "regenerate.py")
regenerate = sys.modules.setdefault("regenerate", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(regenerate)

WITH_TABLES = sorted(p.parent.name for p in EXPERIMENTS.glob("*/tables.py"))
QUICK = [name for name in WITH_TABLES if regenerate.experiment(name).QUICK]


def test_blocks_are_found_and_rewritten_between_their_marks():
    text = ("intro\n<!-- begin: a -->\nold a\n<!-- end: a -->\nmiddle\n<!-- begin: b-2 -->\n"
            "<!-- end: b-2 -->\n")
    assert regenerate.blocks_of(text) == {"a": "old a\n", "b-2": ""}
    assert regenerate.rewrite(text, {"a": "new\nlines\n", "b-2": "x"}) == (
        "intro\n<!-- begin: a -->\nnew\nlines\n<!-- end: a -->\nmiddle\n<!-- begin: b-2 -->\nx\n"
        "<!-- end: b-2 -->\n")
    with pytest.raises(SystemExit, match=r"\['a', 'b-2'\] are not those the tables give \['a'\]"):
        regenerate.rewrite(text, {"a": ""})


@pytest.mark.parametrize("name", WITH_TABLES)
def test_every_block_the_tables_give_is_marked_in_the_readme(name):
    tables = regenerate.experiment(name)
    text = (EXPERIMENTS / name / "README.md").read_text(encoding="utf-8")
    assert regenerate.blocks_of(text), name
    assert (EXPERIMENTS.parent / tables.CONFIG).is_file()
    assert set(tables.VOLATILE) <= set(regenerate.blocks_of(text))


@pytest.mark.slow
@pytest.mark.parametrize("name", QUICK)
def test_the_quick_experiments_readmes_are_what_the_code_gives(name, tmp_path):
    source = regenerate.produce(regenerate.experiment(name), output=tmp_path)
    assert regenerate.differences(name, source) == []
