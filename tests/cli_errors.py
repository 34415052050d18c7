"""What a failing command prints (importable from every test folder: tests/ is on sys.path)."""


def error_line(result):
    """The one line a failing command prints."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]
