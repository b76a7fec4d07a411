"""The box under its real init system: Debian Bookworm with systemd 252 as PID 1 in a container
(tests/box), the console installed by scripts/install-pi, each promise of the Pi checked where
systemd enforces it.

The container stage runs in the background from the start of the suite (tests/conftest.py starts
`python -m tests.box.stage`; it mostly waits on the box while the other tests use the CPU); these
tests, collected last, wait for its report and turn each check into a test: a failed check fails
here with what it found, and what each proved is printed (pytest -s, or the report's JSON).

It needs root, systemd-nspawn and mmdebstrap (./scripts/test installs them). Without root it
FAILS saying so, unless HUES_SKIP_BOX=1, which skips it (a laptop without sudo)."""

from __future__ import annotations

import pytest

from tests.box.stage import all_checks

CHECKS = [name for name, _ in all_checks()]


@pytest.mark.parametrize("check", CHECKS)
def test_box(box_report, check):
    report = box_report(check)
    found = report["checks"].get(check)
    if found is None:
        pytest.fail(f"the container stage did not get to {check}: {report.get('error') or 'it stopped'}",
                    pytrace=False)
    print(f"{check}: {found['detail']} ({found['seconds']} s)")
    assert found["ok"], found["detail"]


def test_box_figures(box_report):
    """The stage's figures, printed for the record (root build or cache, install, exposure, the
    watchdog, the power cuts, boot to first frame), and its time."""
    report = box_report(None)
    for part, figures in report["figures"].items():
        for name, value in figures.items():
            print(f"{part}: {name}: {value}")
    for part, done in report["parts"].items():
        print(f"{part}: over {done['seconds']} s after the stage started")
    assert report["error"] is None, report["error"]
