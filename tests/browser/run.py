#!/usr/bin/env python3
"""Browser tests of the web client, in Chromium driven by Playwright.

    SANNIN_WEB_URL=http://127.0.0.1:8080 python3 tests/browser/run.py

Needs a running server at SANNIN_WEB_URL (default http://127.0.0.1:8080),
Playwright for Python (`pip install playwright`) and a Chromium binary (the
OS package: `apt-get install chromium`; or SANNIN_CHROMIUM=/path). Without
them the tests print that they are skipped and exit 0, unless CI=true, when
that is a failure.

Other settings:
  SANNIN_SCREENSHOTS   where screenshots go (default target/browser-screenshots)
  SANNIN_MAIL_DIR      the server's mail folder, if readable: the test then
                       follows the verification link through /verify
  SANNIN_BROWSER_HEADED=1  show the browser
"""

import glob
import json
import os
import re
import secrets
import shutil
import sys
import time
import traceback
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contract as api_contract  # noqa: E402

BASE = os.environ.get("SANNIN_WEB_URL", "http://127.0.0.1:8080").rstrip("/")
SHOTS = os.environ.get("SANNIN_SCREENSHOTS", "target/browser-screenshots")
CI = os.environ.get("CI", "").lower() == "true"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
PASSWORD = "pale tangerine hexagon orchard"


# Script and style of the whole client, uncompressed (every page's files together),
# as the server's own test counts them (routes/client.rs).
BUDGET = 150_000


def page_weight():
    web = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "web")
    return sum(os.path.getsize(os.path.join(root, f))
               for root, _, files in os.walk(web) for f in files if f.endswith((".js", ".css")))


def skip(reason):
    if CI:
        print(f"browser tests: FAILED (CI=true): {reason}")
        sys.exit(1)
    print(f"browser tests: skipped: {reason}")
    sys.exit(0)


def find_chromium():
    env = os.environ.get("SANNIN_CHROMIUM")
    if env:
        return env if os.path.exists(env) else None
    for name in ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"):
        if os.path.exists(name):
            return name
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Checks:
    """Collects what the page does that it should not: outside requests, console errors."""

    def __init__(self, contract=None):
        self.contract = contract
        self.api_problems = []
        self.outside = []
        self.console = []
        self.failures = []
        self.passed = []

    def watch(self, page):
        origin = urllib.parse.urlsplit(BASE)

        def on_request(req):
            u = urllib.parse.urlsplit(req.url)
            if u.scheme in ("data", "blob", "about"):
                return
            if (u.scheme, u.netloc) != (origin.scheme, origin.netloc):
                self.outside.append(req.url)
            elif self.contract and u.path.startswith("/api/v1/"):
                self.api_problems += self.contract.check_request(req.method, req.url, req.post_data)

        page.on("request", on_request)
        page.on("console", lambda m: m.type == "error" and self.console.append(f"{m.text} ({page.url})"))
        page.on("pageerror", lambda e: self.console.append(f"uncaught: {e} ({page.url})"))

    def check(self, name, fn):
        try:
            fn()
            self.passed.append(name)
            print(f"  ok    {name}")
        except Exception as e:  # noqa: BLE001 - report every failing step and go on
            self.failures.append(f"{name}: {e}")
            print(f"  FAIL  {name}: {e}")
            traceback.print_exc(limit=3)


def main():
    try:
        with urllib.request.urlopen(BASE + "/healthz", timeout=5) as r:
            r.read()
    except Exception as e:  # noqa: BLE001
        skip(f"no server at {BASE} ({e})")
    # The client's calls against the document the server serves (no browser needed).
    with urllib.request.urlopen(BASE + "/api/v1/openapi.json", timeout=10) as r:
        contract = api_contract.Contract(json.load(r))
    calls, problems = api_contract.check_static(contract)
    if problems:
        print("browser tests: FAILED: the client calls what the API does not offer")
        for pr in problems:
            print(f"  - {pr}")
        sys.exit(1)
    print(f"API calls in the client: {len(calls)}, all operations of the served document")
    weight = page_weight()
    print(f"page weight: {weight} bytes of script and style in src/web (budget: under {BUDGET})")
    if weight >= BUDGET:
        print("browser tests: FAILED: the client is over its weight budget")
        sys.exit(1)
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        skip("Playwright for Python is not installed (pip install playwright)")
    chromium = find_chromium()
    if not chromium:
        skip("no Chromium binary (apt-get install chromium, or set SANNIN_CHROMIUM)")

    os.makedirs(SHOTS, exist_ok=True)
    expect.set_options(timeout=20000)
    checks = Checks(contract)
    user = "web" + secrets.token_hex(4)
    state = {}

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=ARGS,
                                    headless=os.environ.get("SANNIN_BROWSER_HEADED") != "1")
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        checks.watch(page)

        def register():
            page.goto(BASE + "/")
            expect(page.get_by_role("link", name="Register").first).to_be_visible()
            page.get_by_role("link", name="Register").first.click()
            expect(page.get_by_role("heading", name="Register")).to_be_visible()
            page.get_by_label("Username").fill(user)
            page.get_by_label("Email").fill(f"{user}@example.com")
            page.get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Register").click()
            expect(page.get_by_role("heading", name="My games")).to_be_visible()
            expect(page.get_by_role("button", name="Log out")).to_be_visible()

        def refused_field_shows_detail():
            # A second registration with the same name: the refusal sits next to Username.
            other = ctx.new_page()
            checks.watch(other)
            other.goto(BASE + "/register")
            other.get_by_label("Username").fill(user)
            other.get_by_label("Email").fill(f"{user}2@example.com")
            other.get_by_label("Password").fill(PASSWORD)
            other.evaluate("localStorage.getItem('sannin.session')")  # same storage; registering does not use it
            other.get_by_role("button", name="Register").click()
            err = other.locator(".field-error:not([hidden])").first
            expect(err).to_contain_text("already taken")
            # The browser itself logs the refused request; that line is expected here.
            checks.console[:] = [c for c in checks.console if "409" not in c]
            other.close()

        def verify_address():
            mail_dir = os.environ.get("SANNIN_MAIL_DIR")
            if not mail_dir:
                print("        (SANNIN_MAIL_DIR not set: verification link not followed)")
                return
            token = None
            for _ in range(30):
                for f in sorted(glob.glob(os.path.join(mail_dir, "*.eml")), key=os.path.getmtime, reverse=True):
                    text = open(f, encoding="utf-8", errors="replace").read()
                    if f"{user}@example.com" not in text:
                        continue
                    flat = text.replace("=\r\n", "").replace("=\n", "").replace("=3D", "=")
                    m = re.search(r"verify\?token=([A-Za-z0-9_.\-]+)", flat)
                    if m:
                        token = m.group(1)
                        break
                if token:
                    break
                time.sleep(0.5)
            assert token, "no verification mail found"
            page.goto(f"{BASE}/verify?token={token}")
            expect(page.locator("main [role=status]")).to_contain_text("is confirmed")

        def new_game(seat="first"):
            page.get_by_role("link", name="New game").first.click()
            expect(page.get_by_role("heading", name="New game")).to_be_visible()
            page.get_by_label("Your seat").select_option(seat)
            # Opponents default to computer players of levels 1 and 2.
            page.get_by_role("button", name="Start the game").click()
            page.wait_for_url(re.compile(r"/games/[0-9a-f-]{36}$"))
            state["game"] = page.url.rsplit("/", 1)[1]
            expect(page.locator("[data-cell='7g']")).to_have_count(1)
            expect(page.locator("[data-cell]")).to_have_count(127)
            if seat == "first":
                expect(page.locator(".banner")).to_contain_text("Your move")

        def play_by_clicking():
            page.evaluate("window.__sameDocument = true")
            page.locator("[data-cell='3d']").click()
            expect(page.locator("[data-cell='4d'].dest")).to_have_count(1)
            page.locator("[data-cell='4d']").click()
            page.get_by_role("button", name="Move", exact=True).click()
            expect(page.locator(".banner")).not_to_contain_text("Your move", timeout=10000)

        def bots_reply_live():
            # Both computer players answer; the page hears it from the stream.
            expect(page.locator(".banner")).to_contain_text("Your move", timeout=60000)
            assert page.evaluate("window.__sameDocument === true"), "the page was reloaded"
            expect(page.locator(".move-list li")).to_have_count(3)
            # Both opponents' moves are on the board.
            arrows = page.locator("svg.board line.arrow")
            assert arrows.count() >= 1, "no arrows for the opponents' moves"

        def play_by_keyboard():
            mine = page.locator("[data-cell][aria-label*=', your ']")
            for i in range(mine.count()):
                cell = mine.nth(i)
                cell.focus()
                page.keyboard.press("Enter")
                if page.locator("[data-cell].dest").count():
                    break
            dest = page.locator("[data-cell].dest").first
            assert dest.count(), "no piece with a legal move"
            dest.focus()
            page.keyboard.press("Enter")
            focused = page.evaluate("document.activeElement.textContent")
            assert focused.startswith("Move"), f"focus is on {focused!r}, not the Move button"
            page.keyboard.press("Enter")
            expect(page.locator(".move-list li")).to_have_count(4)
            # Arrow keys walk the board.
            page.locator("[data-cell='7g']").focus()
            page.keyboard.press("ArrowLeft")
            moved = page.evaluate("document.activeElement.dataset.cell")
            assert moved and moved != "7g", "ArrowLeft did not move the focus"
            expect(page.locator(".banner")).to_contain_text("Your move", timeout=60000)

        def hands_and_text():
            text = page.locator(".text-board")
            assert "First" in text.inner_text() or page.get_by_text("The board as text").count()
            page.get_by_text("The board as text").click()
            expect(text).to_contain_text("king 1d")

        def chat():
            page.get_by_label("Message", exact=True).fill("Good luck to both of you")
            page.get_by_role("button", name="Send").click()
            expect(page.locator(".chat-list")).to_contain_text("Good luck to both of you")

        def screenshots():
            page.screenshot(path=os.path.join(SHOTS, "game-1280.png"), full_page=True)
            page.set_viewport_size({"width": 390, "height": 844})
            page.wait_for_timeout(300)
            page.screenshot(path=os.path.join(SHOTS, "game-390.png"), full_page=True)
            page.set_viewport_size({"width": 1280, "height": 900})
            dark = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark")
            stored = page.evaluate("JSON.stringify(localStorage.getItem('sannin.session'))")
            dark.add_init_script(f"localStorage.setItem('sannin.session', {stored})")
            dp = dark.new_page()
            checks.watch(dp)
            dp.goto(f"{BASE}/games/{state['game']}")
            expect(dp.locator("[data-cell]")).to_have_count(127)
            expect(dp.locator(".player-list li")).to_have_count(3)
            dp.wait_for_timeout(500)
            dp.screenshot(path=os.path.join(SHOTS, "game-390-dark.png"), full_page=True)
            dp.set_viewport_size({"width": 1280, "height": 900})
            dp.wait_for_timeout(300)
            dp.screenshot(path=os.path.join(SHOTS, "game-1280-dark.png"), full_page=True)
            dp.goto(f"{BASE}/")
            expect(dp.get_by_role("heading", name="My games")).to_be_visible()
            dp.wait_for_timeout(500)
            dp.screenshot(path=os.path.join(SHOTS, "home-1280-dark.png"), full_page=True)
            dark.close()

        def phone_board():
            # At 360 and 390 px the board runs from edge to edge, without its frame;
            # zoomed in, a cell is a finger wide and the board scrolls sideways.
            measure = """() => {
                const c = document.querySelector('[data-cell="7g"] .hex').getBoundingClientRect();
                const b = document.querySelector('svg.board').getBoundingClientRect();
                const w = document.querySelector('.board-wrap');
                return {cell: c.width, left: b.left, width: b.width, page: document.documentElement.scrollWidth,
                        scroll: w.scrollWidth - w.clientWidth, scrolled: w.scrollLeft};
            }"""
            for width in (360, 390):
                page.set_viewport_size({"width": width, "height": 800})
                page.wait_for_timeout(200)
                zoom = page.get_by_role("button", name=re.compile("Zoom in on the board|Show the whole board"))
                if zoom.get_attribute("aria-pressed") == "true":
                    zoom.click()
                m = page.evaluate(measure)
                assert m["page"] <= width, f"the page is wider than the screen at {width}px: {m}"
                assert abs(m["left"]) < 1 and abs(m["width"] - width) < 1, f"the board does not fill {width}px: {m}"
                assert m["cell"] > 0.07 * width, f"cells too small at {width}px: {m}"
                page.screenshot(path=os.path.join(SHOTS, f"game-{width}.png"))
                page.get_by_role("button", name="Zoom in on the board").click()
                expect(page.get_by_role("button", name="Show the whole board")).to_have_attribute("aria-pressed", "true")
                m = page.evaluate(measure)
                assert m["cell"] >= 36, f"zoomed cells are {m['cell']:.1f}px at {width}px"
                assert m["page"] <= width, f"the zoomed board widens the page at {width}px: {m}"
                assert m["scroll"] > 0 and 0 < m["scrolled"] < m["scroll"], f"the zoomed board is not centred: {m}"
                page.screenshot(path=os.path.join(SHOTS, f"game-{width}-zoomed.png"))
                # Zoomed in, cells still answer taps: a piece shows where it may go.
                if "Your move" in page.locator(".banner").inner_text():
                    mine = page.locator("[data-cell][aria-label*=', your ']")
                    for i in range(mine.count()):
                        mine.nth(i).click()
                        if page.locator("[data-cell].dest").count():
                            break
                    assert page.locator("[data-cell].dest").count(), "no destination shown after a tap"
                    mine.nth(i).click()  # deselect
                page.get_by_role("button", name="Show the whole board").click()
            page.set_viewport_size({"width": 1280, "height": 900})
            expect(page.locator(".board-tools")).to_be_hidden()

        def spectator():
            anon = browser.new_context(viewport={"width": 390, "height": 844})
            sp = anon.new_page()
            checks.watch(sp)
            sp.goto(f"{BASE}/games/{state['game']}")
            expect(sp.locator("[data-cell]")).to_have_count(127)
            expect(sp.locator(".banner")).to_contain_text("You are watching")
            expect(sp.get_by_role("button", name="Resign")).to_have_count(0)
            expect(sp.get_by_role("link", name="Download the game record")).to_be_visible()
            sp.screenshot(path=os.path.join(SHOTS, "spectator-390.png"), full_page=True)
            anon.close()

        def offer_draw():
            with page.expect_response(lambda r: r.url.endswith("/draw/offer") and r.request.method == "POST") as resp:
                page.get_by_role("button", name="Offer draw").click()
            assert resp.value.status == 200, f"draw offer answered {resp.value.status}"
            # Computer players answer at once: they decline, or the game ends drawn.
            expect(page.locator("body")).to_contain_text(
                re.compile(r"declined the draw|You offered a draw|Drawn"), timeout=20000)
            page.wait_for_timeout(1000)
            state["drawn"] = "Drawn" in page.locator(".banner").inner_text()
            print(f"        (the computer players {'accepted' if state['drawn'] else 'did not accept'})")

        def resign():
            if state.get("drawn"):
                # The bots took the draw; resign in a fresh game instead.
                new_game()
            page.get_by_role("button", name="Resign").click()
            dialog = page.get_by_role("dialog")
            expect(dialog).to_contain_text("Resign this game?")
            dialog.get_by_role("button", name="Yes, resign").click()
            expect(page.locator(".player[data-seat='first']")).to_contain_text("Out: resigned")
            expect(page.get_by_role("button", name="Resign")).to_have_count(0)

        def play_any_move():
            """Click the first piece that has a move, and a destination; wait for my next turn."""
            if "Your move" not in page.locator(".banner").inner_text():
                return False
            before = page.locator(".move-list li").count()
            mine = page.locator("[data-cell][aria-label*=', your ']")
            for i in range(mine.count()):
                mine.nth(i).click()
                if page.locator("[data-cell].dest").count():
                    break
            page.locator("[data-cell].dest").first.click()
            page.locator(".pending-move button.primary").click()
            expect(page.locator(".banner")).not_to_contain_text("Your move", timeout=10000)
            expect(page.locator(".move-list li")).not_to_have_count(before)
            page.wait_for_function(
                "() => /Your move|won|Drawn|out of this game/.test(document.querySelector('.banner').textContent)",
                timeout=60000)
            return "Your move" in page.locator(".banner").inner_text()

        def promotion_and_drop():
            # A second game, from the Middle seat: at its first turn Middle's bishop
            # may take Last's pawn on 8d and may promote there (optional promotion).
            new_game(seat="middle")
            expect(page.locator(".banner")).to_contain_text("Your move", timeout=60000)
            moves = page.evaluate("""async (id) => {
                const s = JSON.parse(localStorage.getItem('sannin.session'));
                const r = await fetch('/api/v1/games/' + id, {headers: {Authorization: 'Bearer ' + s.access}});
                return (await r.json()).legal_moves || []; }""", state["game"])
            both = sorted(m for m in moves if m.endswith("+") and m[:-1] in moves)
            assert both, "no optional promotion among the legal moves"
            move = "12l8d+" if "12l8d+" in both else both[0]
            cells = re.findall(r"\d{1,2}[a-m]", move)
            page.locator(f"[data-cell='{cells[0]}']").click()
            page.locator(f"[data-cell='{cells[1]}']").click()
            expect(page.get_by_role("button", name="Move without promoting")).to_be_visible()
            page.get_by_role("button", name="Move and promote").click()
            expect(page.locator(".move-list li.owner-middle")).to_contain_text("promotes")
            expect(page.locator(".move-list li")).to_have_count(4, timeout=60000)
            expect(page.locator(".banner")).to_contain_text("Your move")
            # Drop a piece from the hand: when no drop is legal now (a check, say),
            # play on for a few turns until one is.
            for _ in range(4):
                hand = page.locator(".hand-bar button[data-hand]:not([disabled])")
                if hand.count():
                    hand.first.click()
                    expect(page.locator("[data-cell].dest").first).to_be_visible()
                    page.locator("[data-cell].dest").first.click()
                    page.get_by_role("button", name="Move", exact=True).click()
                    expect(page.locator(".move-list li.owner-middle").last).to_contain_text("Drops a")
                    break
                if not play_any_move():
                    print("        (the game ended before a drop was possible)")
                    break
            else:
                print("        (no drop was possible in four turns)")
            page.screenshot(path=os.path.join(SHOTS, "game2-1280.png"), full_page=True)

        def illumination_stubbed():
            # Illumination (R24) is rare in play, so the page is given a game of
            # its own through stubbed answers: Middle's promoted king on 10m may
            # capture on 3i, on 13i, or both.
            gid = "00000000-0000-4000-8000-00000000c0de"
            position = ("Ll1Pl1Pf1Lf/SlBlPl2PfRfSf/Gl1Pl3Pf1Gf/Kl1Pl4Pf1Kf/Gl1Nl5Nf1Gf/Sl1Pl6Pf1Sf/"
                        "LlRlPl7PfBfLf/1Pl8Pf1/Pl9Pf/10/PmPmPmPmNmPmPmPmPm/1Bm4Rm1/LmSmGm+KmGmSmLm m - - - 2")
            now = "2026-12-01T12:00:00Z"
            players = [{"seat": s, "username": n, "bot": b, "state": "playing", "in_check": False}
                       for s, n, b in (("first", "sannin-bot-1", True), ("middle", user, False), ("last", "sannin-bot-2", True))]
            view = {"id": gid, "status": "active", "players": players, "to_move": "middle", "ply": 2,
                    "position": position, "your_seat": "middle", "your_turn": True,
                    "legal_moves": ["10m!13i", "10m!3i", "10m!13i,3i", "7l7k"], "board": [], "hands": {},
                    "castling": [], "time_control": {"kind": "none"}, "pause_on_weekends": False,
                    "vacation": True, "rated": False, "options": {"stuck_piece": "promote", "illumination": "selective"},
                    "alliance_proposals": [], "actions": 0, "created_at": now, "updated_at": now, "started_at": now}
            sent = []

            def answer(route):
                req = route.request
                tail = urllib.parse.urlsplit(req.url).path.split(gid, 1)[1]
                body = {"": view, "/moves": [] if req.method == "GET" else {**view, "your_turn": False, "legal_moves": None},
                        "/chat": {"messages": [], "table_muted": False}, "/notes": {"text": ""},
                        "/premoves": {"lines": []}}.get(tail)
                if req.method == "POST" and tail == "/moves":
                    sent.append(json.loads(req.post_data))
                if tail == "/stream":
                    return route.fulfill(status=200, content_type="text/event-stream", body="retry: 60000\n\n")
                route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

            page.route(f"**/api/v1/games/{gid}**", answer)
            try:
                page.goto(f"{BASE}/games/{gid}")
                expect(page.locator(".banner")).to_contain_text("Your move")
                page.locator("[data-cell='10m']").click()
                bar = page.locator(".illumination")
                expect(bar).to_be_visible()
                expect(page.locator("[data-cell='3i'].target")).to_have_count(1)
                capture = bar.get_by_role("button", name="Capture the ticked pieces")
                expect(capture).to_be_disabled()
                bar.get_by_label("First's pawn on 3i").check()
                bar.get_by_label("Last's pawn on 13i").check()
                expect(capture).to_be_enabled()
                page.screenshot(path=os.path.join(SHOTS, "illumination-1280.png"))
                capture.click()
                expect(page.locator(".banner")).not_to_contain_text("Your move")
                assert sent == [{"move": "10m!13i,3i", "ply": 2}], f"sent {sent}"
            finally:
                # Leave the stubbed game before the real server answers for it (404).
                page.goto(BASE + "/")
                expect(page.get_by_role("heading", name="My games")).to_be_visible()
                page.unroute(f"**/api/v1/games/{gid}**")

        def api_call(method, path, body=None, token=None):
            req = urllib.request.Request(
                BASE + "/api/v1" + path, method=method,
                data=None if body is None else json.dumps(body).encode(),
                headers={"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})})
            with urllib.request.urlopen(req, timeout=20) as r:
                text = r.read()
            return json.loads(text) if text else None

        def plan_premoves():
            # Two more players, driven through the API, so that the turn stays
            # away from the page while it plans: me First, them Middle and Last.
            others = []
            for seat in ("middle", "last"):
                name = f"{seat[:3]}{secrets.token_hex(4)}"
                api_call("POST", "/accounts", {"username": name, "email": f"{name}@example.com", "password": PASSWORD})
                others.append((name, api_call("POST", "/auth/token", {"username": name, "password": PASSWORD})["access_token"]))
            token = page.evaluate("JSON.parse(localStorage.getItem('sannin.session')).access")
            g = api_call("POST", "/games", {"seat": "first", "invite": [n for n, _ in others]}, token)
            gid = g["id"]
            for _, t in others:
                api_call("POST", f"/games/{gid}/join", None, t)
            page.goto(f"{BASE}/games/{gid}")
            expect(page.locator(".banner")).to_contain_text("Your move")
            page.locator("[data-cell='3d']").click()
            page.locator("[data-cell='4d']").click()
            page.get_by_role("button", name="Move", exact=True).click()
            expect(page.locator(".banner")).to_contain_text("you may plan replies")
            # A line by clicking: Middle's pawn, Last's pawn, then mine.
            for cell in ("7k", "7j", "7c", "7d"):
                page.locator(f"[data-cell='{cell}']").click()
            bar = page.locator(".plan-bar")
            expect(bar).to_contain_text("Next in your plan")
            expect(bar.get_by_role("button", name="Save premove line")).to_be_disabled()
            page.locator("[data-cell='3c']").click()
            expect(page.locator("[data-cell='4c'].dest")).to_have_count(1)
            page.locator("[data-cell='4c']").click()
            expect(bar.locator(".plan-line li")).to_have_count(3)
            page.screenshot(path=os.path.join(SHOTS, "premove-plan-1280.png"), full_page=True)
            bar.get_by_role("button", name="Save premove line").click()
            lines = page.locator(".premove-lines li")
            expect(lines).to_have_count(1)
            expect(lines.first).to_contain_text("7k7j → 7c7d → 3c4c")
            # A second line that answers the same moves otherwise: the server refuses
            # it, and the page says which move and why, next to the line.
            for cell in ("7k", "7j", "7c", "7d", "3b", "4b"):
                page.locator(f"[data-cell='{cell}']").click()
            bar.get_by_role("button", name="Save premove line").click()
            expect(bar.locator(".plan-refusal")).to_contain_text("Move 3 of this line, 3b4b, is refused")
            checks.console[:] = [c for c in checks.console if "422" not in c]
            page.screenshot(path=os.path.join(SHOTS, "premove-refused-1280.png"), full_page=True)
            bar.get_by_role("button", name="Cancel plan").click()
            expect(bar).to_be_hidden()
            # The game follows the line: my reply is played for me, and the page hears it.
            api_call("POST", f"/games/{gid}/moves", {"move": "7k7j", "ply": 2}, others[0][1])
            api_call("POST", f"/games/{gid}/moves", {"move": "7c7d", "ply": 3}, others[1][1])
            expect(page.locator(".move-list li")).to_have_count(4)
            expect(page.locator(".move-list li").last).to_contain_text("planned ahead")
            expect(page.locator(".move-list li").last).to_contain_text("3c4c")

        def home_lists_game():
            page.get_by_role("link", name="My games").click()
            expect(page.get_by_role("heading", name="My games")).to_be_visible()
            expect(page.locator(".game-item").first).to_be_visible()
            page.screenshot(path=os.path.join(SHOTS, "home-1280.png"), full_page=True)
            page.set_viewport_size({"width": 390, "height": 844})
            page.screenshot(path=os.path.join(SHOTS, "home-390.png"), full_page=True)
            page.goto(BASE + "/new")
            expect(page.get_by_role("heading", name="New game")).to_be_visible()
            page.screenshot(path=os.path.join(SHOTS, "new-390.png"), full_page=True)
            page.set_viewport_size({"width": 1280, "height": 900})

        def stays_logged_in_and_logs_out():
            # A forced expiry: the client refreshes its tokens and carries on.
            page.evaluate("""() => { const s = JSON.parse(localStorage.getItem('sannin.session'));
                                     s.expiresAt = Date.now() - 1000; localStorage.setItem('sannin.session', JSON.stringify(s)); }""")
            old = page.evaluate("JSON.parse(localStorage.getItem('sannin.session')).refresh")
            page.goto(BASE + "/settings")
            expect(page.get_by_role("heading", name="Settings")).to_be_visible()
            expect(page.get_by_label("Time zone")).to_be_visible()
            new = page.evaluate("JSON.parse(localStorage.getItem('sannin.session')).refresh")
            assert new != old, "the refresh token was not rotated"
            page.screenshot(path=os.path.join(SHOTS, "settings-1280.png"), full_page=True)
            page.get_by_role("button", name="Log out").click()
            expect(page.get_by_role("heading", name="Log in")).to_be_visible()
            page.get_by_label("Username").fill(user)
            page.get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Log in").click()
            expect(page.get_by_role("heading", name="My games")).to_be_visible()

        print(f"browser tests against {BASE} (Chromium {browser.version}), user {user}")
        steps = [
            ("register", register),
            ("a refusal is shown next to its field", refused_field_shows_detail),
            ("verify the address through /verify", verify_address),
            ("start a game against two computer players", new_game),
            ("play a move by clicking cells", play_by_clicking),
            ("the bots' replies arrive without a reload", bots_reply_live),
            ("play a move with the keyboard alone", play_by_keyboard),
            ("the board as text", hands_and_text),
            ("chat to the table", chat),
            ("screenshots, light and dark", screenshots),
            ("the board at phone width, fitted and zoomed", phone_board),
            ("watch the game without logging in", spectator),
            ("offer a draw", offer_draw),
            ("resign with confirmation", resign),
            ("promotion choice and a drop from the hand", promotion_and_drop),
            ("illumination: capture without moving (stubbed game)", illumination_stubbed),
            ("plan premoves on the board; a refusal in words", plan_premoves),
            ("home lists the game", home_lists_game),
            ("tokens refresh; log out and in", stays_logged_in_and_logs_out),
        ]
        for name, fn in steps:
            failed = len(checks.failures)
            checks.check(name, fn)
            if fn is new_game and len(checks.failures) > failed:
                break  # nothing after it can run without the game
        browser.close()

    if checks.outside:
        checks.failures.append(f"requests outside the server: {sorted(set(checks.outside))}")
    if checks.api_problems:
        checks.failures.append(f"requests that do not match the API document: {sorted(set(checks.api_problems))}")
    if checks.console:
        checks.failures.append(f"console errors: {checks.console}")
    print(f"screenshots in {os.path.abspath(SHOTS)}")
    if checks.failures:
        print("browser tests: FAILED")
        for f in checks.failures:
            print(f"  - {f}")
        sys.exit(1)
    print(f"browser tests: {len(checks.passed)} passed")


if __name__ == "__main__":
    main()
