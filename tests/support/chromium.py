"""Headless Chromium from tests and benchmarks: load a local page, take its DOM after the scripts
ran, or a screenshot. Uses the browser's own command-line modes, so nothing beyond the chromium
binary (Debian's ``chromium`` package) is needed."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def find_chromium() -> Optional[Path]:
    """The first Chromium binary on PATH (or in $OPDIFF_CHROMIUM), else None."""
    forced = os.environ.get("OPDIFF_CHROMIUM")
    if forced:
        return Path(forced) if Path(forced).exists() else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return Path(found)
    return None


@dataclass(frozen=True)
class PageLoad:
    """What one headless load returned: the serialised DOM and the wall time of the browser process."""

    dom: str
    seconds: float


def _base_args(binary: Path, profile: str) -> List[str]:
    # --no-sandbox: tests run as root in containers; a fresh profile keeps runs independent.
    return [str(binary), "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
            "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--hide-scrollbars"]


def _browser_environment() -> Dict[str, str]:
    """Our environment without what only opdiff's own processes should see: the sanitizer suite
    preloads the ASan runtime (LD_PRELOAD), which the browser cannot start under."""
    return {key: value for key, value in os.environ.items() if key not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}


def _run(args: List[str], timeout: float) -> Tuple[subprocess.CompletedProcess[str], float]:
    start = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=_browser_environment())
    return done, time.perf_counter() - start


def dump_dom(page: Path, *, fragment: str = "", window: Tuple[int, int] = (1400, 1000), binary: Optional[Path] = None,
             timeout: float = 60.0) -> PageLoad:
    """Load ``page`` (a local file) and return the DOM after its scripts ran."""
    binary = binary or find_chromium()
    if binary is None:
        raise FileNotFoundError("no chromium binary found")
    with tempfile.TemporaryDirectory(prefix="opdiff-chromium-") as profile:
        url = Path(page).resolve().as_uri() + (f"#{fragment}" if fragment else "")
        done, seconds = _run(_base_args(binary, profile) + [f"--window-size={window[0]},{window[1]}", "--dump-dom", url], timeout)
    if done.returncode != 0 or not done.stdout:
        raise RuntimeError(f"chromium --dump-dom failed ({done.returncode}): {done.stderr[-2000:]}")
    return PageLoad(done.stdout, seconds)


def screenshot(page: Path, out: Path, *, fragment: str = "", window: Tuple[int, int] = (1400, 1600),
               binary: Optional[Path] = None, timeout: float = 60.0) -> Path:
    """Load ``page`` and save a PNG of the window to ``out``."""
    binary = binary or find_chromium()
    if binary is None:
        raise FileNotFoundError("no chromium binary found")
    out = Path(out).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="opdiff-chromium-") as profile:
        url = Path(page).resolve().as_uri() + (f"#{fragment}" if fragment else "")
        done, _ = _run(_base_args(binary, profile) + [f"--window-size={window[0]},{window[1]}", f"--screenshot={out}", url],
                       timeout)
    if done.returncode != 0 or not out.exists():
        raise RuntimeError(f"chromium --screenshot failed ({done.returncode}): {done.stderr[-2000:]}")
    return out
