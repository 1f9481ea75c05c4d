"""The committed control API client is what generate_control.py makes of the spec now: a spec that
gains an operation or a parameter fails here until the client is generated again."""

import filecmp
import sys
from pathlib import Path

MODULE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(MODULE))

from generate_control import OUTPUT, generate


def differences(left: Path, right: Path) -> list[str]:
    compared = filecmp.dircmp(left, right, ignore=["__pycache__"])
    found = [*compared.left_only, *compared.right_only, *compared.diff_files, *compared.funny_files]
    for name, sub in compared.subdirs.items():
        found += [f"{name}/{item}" for item in differences(Path(sub.left), Path(sub.right))]
    return found


def test_the_control_client_is_what_the_spec_makes_now(tmp_path: Path) -> None:
    generate(tmp_path / "control_api")
    assert differences(OUTPUT, tmp_path / "control_api") == [], "run `python generate_control.py` in modules/python"
