"""Where the small exact fixtures live (importable from every test folder: tests/ is on
sys.path)."""

from pathlib import Path

DATA = Path(__file__).parent / "data"
