"""The preview in a real browser: headless Chromium driven over the DevTools protocol.

Chromium is started with ``--remote-debugging-pipe`` (commands on fd 3, replies on fd 4,
NUL-separated JSON), so no websocket client or network port is needed. The page's CSP
forbids scripts; ``Runtime.evaluate`` from DevTools is not subject to it, which is how the
tests read ``naturalWidth`` and the ``window.__xss`` sentinel.

The tests skip only when no Chromium executable can be found on a developer machine
(install Debian's ``chromium``). Under CI (the ``CI`` environment variable is set, as
``.ci/run`` and every hosted CI runner do) a missing browser is a failure, and everywhere a
browser that is found but fails to start is a failure, never a skip.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from xss_corpus import CASES, RENDER_TIME_CASES, SENTINEL, sample_bundle

from lmml_mdit import write_preview
from lmml_mdit.cli import main

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
TIMEOUT = 30.0


def _find_chromium() -> str | None:
    override = os.environ.get("LMML_CHROMIUM")
    if override:
        return override
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


CHROMIUM = _find_chromium()
_NO_CHROMIUM = (
    "no Chromium executable found (install Debian's 'chromium' package, or set LMML_CHROMIUM)"
)


def _under_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def _require_chromium() -> str:
    """The browser's path; a skip on a developer machine without one, a failure under CI."""
    if CHROMIUM is not None:
        return CHROMIUM
    if _under_ci():
        pytest.fail(f"{_NO_CHROMIUM}; CI must run the browser tests")
    pytest.skip(_NO_CHROMIUM)


class DevToolsError(RuntimeError):
    """The browser answered a command with an error, or did not answer in time."""


class Browser:
    """A headless Chromium and one page session, over ``--remote-debugging-pipe``."""

    def __init__(self, executable: str, profile: str) -> None:
        command_read, self._command_write = os.pipe()
        self._reply_read, reply_write = os.pipe()

        def wire_pipes() -> None:  # runs in the child before exec
            high_in = os.dup(command_read)
            high_out = os.dup(reply_write)
            os.dup2(high_in, 3)
            os.dup2(high_out, 4)

        args = [
            executable,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--mute-audio",
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire_pipes,
            pass_fds=(3, 4),
        )
        os.close(command_read)
        os.close(reply_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.url = "about:blank"
        try:
            self.session = self._attach()
        except DevToolsError as error:
            self._stop()
            raise DevToolsError(
                f"{executable} did not start (exit code {self.process.returncode}): {error}"
            ) from error

    # -- transport -----------------------------------------------------------------------

    def _send(self, method: str, params: dict[str, Any] | None, session: str | None) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        try:
            os.write(self._command_write, json.dumps(message).encode() + b"\0")
        except OSError as error:  # the browser exited: its end of the pipe is closed
            raise DevToolsError(f"{method}: cannot reach the browser ({error})") from error
        return self._next_id

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DevToolsError("timed out waiting for the browser")
            ready, _, _ = select.select([self._reply_read], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self._reply_read, 1 << 20)
            if not chunk:
                raise DevToolsError("the browser closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def call(
        self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None
    ) -> dict[str, Any]:
        """Send a command and return its result, recording events that arrive meanwhile."""
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + TIMEOUT
        while True:
            message = self._read_message(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise DevToolsError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result
            if "method" in message:
                self._on_event(message)

    def page(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A command on the page session."""
        return self.call(method, params, session=self.session)

    def _on_event(self, message: dict[str, Any]) -> None:
        self.events.append(message)
        if message["method"] == "Page.javascriptDialogOpening":
            # Answer it, or the page stays blocked; the test sees the recorded event.
            self._send("Page.handleJavaScriptDialog", {"accept": True}, self.session)

    def wait_for(self, method: str, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Wait for an event named *method* that arrived after the last :meth:`clear`."""
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event["method"] == method:
                    return event
            message = self._read_message(deadline)
            if "method" in message:
                self._on_event(message)

    def drain(self, seconds: float) -> None:
        """Collect events for *seconds* (late image errors, timers a payload might set)."""
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            ready, _, _ = select.select([self._reply_read], [], [], remaining)
            if ready or b"\0" in self._buffer:
                try:
                    message = self._read_message(time.monotonic() + remaining)
                except DevToolsError:
                    return
                if "method" in message:
                    self._on_event(message)

    # -- page ------------------------------------------------------------------------------

    def _attach(self) -> str:
        targets = self.call("Target.getTargets")["targetInfos"]
        pages = [target for target in targets if target["type"] == "page"]
        if pages:
            target_id = pages[0]["targetId"]
        else:
            target_id = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session: str = self.call("Target.attachToTarget", {"targetId": target_id, "flatten": True})[
            "sessionId"
        ]
        self.session = session
        for domain in (
            "Page.enable",
            "Runtime.enable",
            "Log.enable",
            "Debugger.enable",
            "Network.enable",
        ):
            self.page(domain)
        self.page(
            "Emulation.setDeviceMetricsOverride",
            {
                "width": 1000,
                "height": 800,
                "deviceScaleFactor": 1,
                "mobile": False,
            },
        )
        return session

    def open(self, url: str) -> None:
        """Navigate to *url* and wait for its load event and a short settling time."""
        self.events.clear()
        self.url = url
        self.page("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")
        self.drain(0.3)

    def evaluate(self, expression: str) -> Any:
        """Evaluate *expression* in the page (DevTools is not bound by the page's CSP)."""
        result = self.page("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise DevToolsError(f"evaluate failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def console_errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries since :meth:`open`."""
        errors = []
        for event in self.events:
            params = event.get("params", {})
            if event["method"] == "Runtime.consoleAPICalled" and params.get("type") in (
                "error",
                "assert",
            ):
                errors.append(json.dumps(params.get("args")))
            elif event["method"] == "Runtime.exceptionThrown":
                errors.append(json.dumps(params.get("exceptionDetails")))
            elif event["method"] == "Log.entryAdded" and params["entry"]["level"] == "error":
                errors.append(params["entry"].get("text", ""))
        return errors

    def page_scripts(self) -> list[str]:
        """URLs of scripts the page compiled since :meth:`open` (before any evaluate)."""
        return [
            event["params"].get("url", "")
            for event in self.events
            if event["method"] == "Debugger.scriptParsed"
        ]

    def fetches(self) -> list[str]:
        """URLs the page asked the network for since :meth:`open`: every request but the
        page itself and ``data:`` URIs (a request the CSP blocks is still listed)."""
        return [
            url
            for event in self.events
            if event["method"] == "Network.requestWillBeSent"
            and (url := event["params"]["request"]["url"]) != self.url
            and not url.startswith("data:")
        ]

    def dialogs(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["method"] == "Page.javascriptDialogOpening"]

    def screenshot(self, path: Path) -> None:
        """Save a full-page PNG screenshot."""
        self.page(
            "Emulation.setDeviceMetricsOverride",
            {
                "width": 1000,
                "height": 800,
                "deviceScaleFactor": 1,
                "mobile": False,
            },
        )
        height = int(self.evaluate("document.documentElement.scrollHeight"))
        self.page(
            "Emulation.setDeviceMetricsOverride",
            {
                "width": 1000,
                "height": min(max(height, 200), 16000),
                "deviceScaleFactor": 1,
                "mobile": False,
            },
        )
        data = self.page("Page.captureScreenshot", {"format": "png"})["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        with contextlib.suppress(DevToolsError, OSError):
            self.call("Browser.close")
        self._stop()

    def _stop(self) -> None:
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        os.close(self._command_write)
        os.close(self._reply_read)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = _require_chromium()
    with tempfile.TemporaryDirectory(prefix="lmml-chromium-") as profile:
        instance = Browser(executable, profile)
        try:
            yield instance
        finally:
            instance.close()


def _page_url(tmp_path: Path, name: str, document: str) -> str:
    path = tmp_path / f"{name}.html"
    path.write_text(document, encoding="utf-8")
    return path.as_uri()


# --------------------------------------------------------------------------- the harness


def test_harness_detects_a_script_that_runs(browser: Browser, tmp_path: Path) -> None:
    """The checks below could fail: without a CSP, a script runs and every signal shows it."""
    page = "<!DOCTYPE html><title>control</title><script>window.__xss = 1; alert(1)</script>"
    browser.open(_page_url(tmp_path, "control", page))
    assert browser.evaluate(f"typeof window.{SENTINEL}") == "number"
    assert browser.dialogs()
    assert browser.page_scripts()


def test_harness_sees_a_broken_image_and_a_csp_violation(browser: Browser, tmp_path: Path) -> None:
    policy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    page = (
        f'<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<img src="data:image/png;base64,AAAA"><script>window.__xss = 1</script>'
    )
    browser.open(_page_url(tmp_path, "broken", page))
    assert browser.evaluate("[...document.images].every(i => i.naturalWidth > 0)") is False
    assert browser.evaluate(f"typeof window.{SENTINEL}") == "undefined"
    assert any("Content Security Policy" in error for error in browser.console_errors())


def test_harness_sees_a_fetch(browser: Browser, tmp_path: Path) -> None:
    """A page that asks for a file or a web address is seen, with or without a CSP."""
    policy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    fetching = '<link rel="stylesheet" href="x.css"><img src="http://127.0.0.1:9/x.png">'
    browser.open(_page_url(tmp_path, "fetch", f"<!DOCTYPE html>{fetching}"))
    assert browser.fetches() == [(tmp_path / "x.css").as_uri(), "http://127.0.0.1:9/x.png"]
    guarded = f'<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="{policy}">'
    browser.open(_page_url(tmp_path, "fetch-csp", guarded + fetching))
    assert len(browser.fetches()) == 2


# --------------------------------------------------------------------------- the preview

_IMAGES_DECODED = (
    "[...document.images].map(i => [i.getAttribute('alt'), i.complete, i.naturalWidth])"
)


def test_sample_preview_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    bundle = sample_bundle()
    path = tmp_path / "preview.html"
    write_preview(bundle, path)
    browser.open(path.as_uri())

    assert browser.console_errors() == []
    assert browser.page_scripts() == []
    assert browser.fetches() == []
    images = browser.evaluate(_IMAGES_DECODED)
    assert {alt for alt, _, _ in images} == {"chart.png", "logo.svg"}
    assert all(complete and width > 0 for _, complete, width in images), images
    # Chart: referenced twice (paragraph and table cell), both decoded at 48 px.
    assert [width for alt, _, width in images if alt == "chart.png"] == [48, 48]
    assert browser.evaluate("document.querySelectorAll('section.lmml-turn').length") == 6
    roles = browser.evaluate(
        "[...document.querySelectorAll('section.lmml-turn')].map(s => s.dataset.lmmlRole)"
    )
    assert roles == ["context", "system", "user", "assistant", "tool", "user"]
    # Role colours differ between every pair of message roles.
    colours = browser.evaluate(
        "[...document.querySelectorAll('.lmml-role-badge')]"
        ".map(b => getComputedStyle(b).backgroundColor)"
    )
    by_role = dict(zip(roles, colours, strict=True))
    assert len(set(by_role.values())) == 5
    # A <details> opens without JavaScript and shows the text asset.
    shown = browser.evaluate(
        "document.querySelector('details[data-lmml-name=\"plot.py\"]').open"
        " && document.querySelector('details[data-lmml-name=\"plot.py\"] pre').offsetHeight > 0"
    )
    assert shown is True
    missing = browser.evaluate(
        "[...document.querySelectorAll('.lmml-missing')].map(e => e.textContent)"
    )
    assert missing == ["@appendix.csvmissing"]

    ARTIFACTS.mkdir(exist_ok=True)
    artifact = ARTIFACTS / "preview.png"
    browser.screenshot(artifact)
    assert artifact.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert artifact.stat().st_size > 10_000


def test_example_bundles_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    """Each shipped example (``examples/*.lmmlz`` / ``*.lmml``), as ``lmml preview`` writes
    it, opens cleanly: no fetch, no script, no console error, every image decoded."""
    examples = sorted((ROOT / "examples").glob("*.lmml*"))
    assert examples, "examples/ holds no bundles"
    ARTIFACTS.mkdir(exist_ok=True)
    shown: dict[str, list[str]] = {}
    for example in examples:
        page = tmp_path / f"{example.name}.html"
        assert main(["preview", "-q", str(example), "-o", str(page)]) == 0
        browser.open(page.as_uri())
        assert browser.console_errors() == [], example.name
        assert browser.page_scripts() == [], example.name
        assert browser.fetches() == [], example.name
        images = browser.evaluate(_IMAGES_DECODED)
        assert all(complete and width > 0 for _, complete, width in images), (example, images)
        shown[example.name] = [alt for alt, _, _ in images]
        browser.screenshot(ARTIFACTS / f"preview-{example.stem}.png")
    # The archive example's chart is on the page (so "every image decoded" says something).
    assert shown["sales-review.lmmlz"] == ["chart.png"]


def test_no_xss_payload_runs_in_the_browser(browser: Browser, tmp_path: Path) -> None:
    failures: dict[str, str] = {}
    for case in (*CASES, *RENDER_TIME_CASES):
        url = _page_url(tmp_path, case.id, case.page())
        browser.open(url)
        problems = []
        if browser.page_scripts():
            problems.append(f"scripts compiled: {browser.page_scripts()}")
        if browser.fetches():
            problems.append(f"fetched: {browser.fetches()}")
        if browser.dialogs():
            problems.append("a dialog opened")
        if browser.console_errors():
            problems.append(f"console errors: {browser.console_errors()}")
        if browser.evaluate(f"typeof window.{SENTINEL}") != "undefined":
            problems.append("the sentinel was set")
        if browser.evaluate("location.href") != url:
            problems.append("the page navigated away")
        if not browser.evaluate("[...document.images].every(i => i.naturalWidth > 0)"):
            problems.append("an image did not decode")
        if problems:
            failures[case.id] = "; ".join(problems)
    assert failures == {}


def test_no_xss_payload_runs_in_a_notebook_fragment(browser: Browser, tmp_path: Path) -> None:
    """What a notebook shows (``Bundle._repr_html_``, the page's ``<div>``) inside a host
    page with no CSP at all: the markup alone runs nothing and fetches nothing."""
    failures: dict[str, str] = {}
    for case in (*CASES, *RENDER_TIME_CASES):
        # The notebook's view; a template's values are given as render_html takes them.
        fragment = case.bundle()._repr_html_() if case.inputs is None else case.page(fragment=True)
        host = f"<!DOCTYPE html><html><body>{fragment}</body></html>"
        assert "Content-Security-Policy" not in host
        url = _page_url(tmp_path, f"{case.id}-fragment", host)
        browser.open(url)
        problems = []
        if browser.page_scripts():
            problems.append(f"scripts compiled: {browser.page_scripts()}")
        if browser.fetches():
            problems.append(f"fetched: {browser.fetches()}")
        if browser.dialogs():
            problems.append("a dialog opened")
        if browser.console_errors():
            problems.append(f"console errors: {browser.console_errors()}")
        if browser.evaluate(f"typeof window.{SENTINEL}") != "undefined":
            problems.append("the sentinel was set")
        if browser.evaluate("location.href") != url:
            problems.append("the page navigated away")
        if problems:
            failures[case.id] = "; ".join(problems)
    assert failures == {}


# --------------------------------------------------------------------------- skip policy


def test_a_browser_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    """An executable that exits at once raises (so the fixture errors), it is not a skip."""
    with pytest.raises(DevToolsError, match="did not start"):
        Browser(shutil.which("false") or "/bin/false", str(tmp_path))


def test_missing_chromium_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the browser tests"):
        _require_chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="no Chromium executable"):
        _require_chromium()
