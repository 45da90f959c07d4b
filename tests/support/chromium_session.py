"""A live headless Chromium page that a test can click in: the DevTools protocol over the browser's
own pipe (--remote-debugging-pipe: commands on fd 3, replies on fd 4, NUL-separated JSON), so it
needs nothing beyond the chromium binary. Clicks are real input events at screen coordinates
(Input.dispatchMouseEvent), through the page's own event handlers.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Dict, Optional, Tuple, Type, Union

from tests.support import chromium

# An opdiff page (the HTML report) says it is drawn with <body data-ready="1">.
OPDIFF_PAGE_READY = "document.body && document.body.dataset.ready === '1'"


class ChromiumPage:
    """One page of a fresh headless Chromium; use as a context manager.

    >>> ChromiumPage.__enter__.__doc__.split(":")[0]
    'Start the browser and open the page'
    """

    def __init__(self, page: Union[Path, str], *, window: Tuple[int, int] = (1400, 1000), timeout: float = 60.0,
                 ready: str = OPDIFF_PAGE_READY) -> None:
        """`page`: a local file, or an http:// URL of a server on this machine; `ready`: the JavaScript
        condition that says the page is drawn (default: an opdiff page's body data-ready)."""
        binary = chromium.find_chromium()
        if binary is None:
            raise FileNotFoundError("no chromium binary found")
        url = page if isinstance(page, str) else Path(page).resolve().as_uri()
        self.binary, self.url, self.window, self.timeout, self.ready = binary, url, window, timeout, ready
        self._ids = 0
        self._buffer = b""
        self.session = ""

    def __enter__(self) -> ChromiumPage:
        """Start the browser and open the page: returns once the page's scripts ran (body data-ready)."""
        # a browser's helper processes may still write the profile as it is removed
        self._profile = tempfile.TemporaryDirectory(prefix="opdiff-chromium-", ignore_cleanup_errors=True)
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()

        def wire() -> None:  # the browser reads commands on fd 3 and writes replies to fd 4
            high_read, high_write = os.dup(commands_read), os.dup(replies_write)
            os.dup2(high_read, 3)  # dup2's copies are inheritable; every other pipe end closes on exec
            os.dup2(high_write, 4)

        args = chromium._base_args(self.binary, self._profile.name) + [
            f"--window-size={self.window[0]},{self.window[1]}", "--remote-debugging-pipe", "about:blank"]
        self._process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         env=chromium._browser_environment(), preexec_fn=wire, close_fds=False,
                                         start_new_session=True)  # its own group: __exit__ stops every helper process
        os.close(commands_read)
        os.close(replies_write)
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.navigate", url=self.url)
        self.wait_for(self.ready)
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], error: Optional[BaseException],
                 trace: Optional[TracebackType]) -> None:
        os.killpg(self._process.pid, signal.SIGKILL)
        self._process.wait()
        os.close(self._commands)
        os.close(self._replies)
        self._profile.cleanup()

    def call(self, method: str, **params: Any) -> Dict[str, Any]:
        """Send one DevTools command (to the page's session once attached) and return its result."""
        self._ids += 1
        message: Dict[str, Any] = {"id": self._ids, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            reply = self._next_message()
            if reply.get("id") == self._ids:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: Dict[str, Any] = reply.get("result", {})
                return result
        raise TimeoutError(f"chromium did not answer {method} within {self.timeout} s")

    def _next_message(self) -> Dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed: Dict[str, Any] = json.loads(message)
        return parsed

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-serialisable values)."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, condition: str) -> None:
        """Poll until a JavaScript condition holds."""
        deadline = time.monotonic() + self.timeout
        while not self.evaluate(f"Boolean({condition})"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"page never got to: {condition}")
            time.sleep(0.05)

    def screenshot(self, out: Path) -> Path:
        """A PNG of the window as it is now."""
        shot = self.call("Page.captureScreenshot", format="png")
        Path(out).write_bytes(base64.b64decode(shot["data"]))
        return Path(out)

    def click(self, selector: str) -> None:
        """A real left click at the centre of the first element matching `selector`, once that point
        shows the element (scrolled into view, nothing drawn over it)."""
        find = (f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
                " e.scrollIntoView({block: 'center', inline: 'center'}); const r = e.getBoundingClientRect();"
                " const x = r.left + r.width / 2, y = r.top + r.height / 2, hit = document.elementFromPoint(x, y);"
                " return [x, y, r.width > 0 && hit !== null && (hit === e || e.contains(hit))]; })()")
        deadline = time.monotonic() + self.timeout
        while True:
            spot = self.evaluate(find)
            if spot is None:
                raise LookupError(f"no element {selector}")
            if spot[2]:
                break
            if time.monotonic() > deadline:
                raise LookupError(f"{selector} is not visible to click")
            time.sleep(0.05)
        x, y = spot[0], spot[1]
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)
