"""The README's usage snippets, run as written in a pytest of their own."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
# A Python block that starts with "# <file name>.py" is that file.
FILE_SNIPPET = re.compile(r"```python\n(?P<code># (?P<name>\w+)\.py\n.*?)```", re.DOTALL)


def test_the_readme_usage_runs_as_written(pytester: pytest.Pytester, docker_engine: object) -> None:
    files = {match["name"]: match["code"] for match in FILE_SNIPPET.finditer(README.read_text())}
    assert sorted(files) == ["conftest", "test_pets"]
    pytester.makepyfile(**files)

    # A subprocess: its own session container, with this environment (image, reaper setting).
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(passed=2)
