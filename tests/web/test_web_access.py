"""Who may use the page: the password, the session cookie and its CSRF token, the login
rate limit, the local-network, Host and Origin checks; every refusal is a clear message,
changes nothing and leaves the service answering."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from web_fixtures import PASSWORD, Page, T, album_id, start_world, stop_world

from device.web import auth


async def test_no_password_locks_every_api_call_and_the_page_says_how_to_set_one(
    tmp_path: Path,
) -> None:
    world, serving = await start_world(tmp_path, password=None)
    client = Page(world.url)
    try:
        for method, path in (("GET", "/api/state"), ("GET", "/api/session"),
                             ("POST", "/api/login"), ("POST", "/api/play"),
                             ("GET", "/api/nothing-here")):  # fmt: skip
            status, body = await asyncio.wait_for(
                client.request(method, path, {"password": "anything-at-all"}), T
            )
            assert status == 401, (path, body)
            assert body["error"] == "no_password", body
            assert "xiaoting web password" in body["message"]
        async with client.session.get(world.url + "/") as response:
            assert response.status == 200
            html = await response.text()
        assert 'id="login-form"' in html and "/static/app.js" in html
        assert world.runtime.player.state == "idle"
    finally:
        await client.close()
        await stop_world(world, serving)


async def test_login_sets_an_httponly_strict_cookie_and_a_csrf_token(world) -> None:
    client = Page(world.url)
    try:
        status, body = await client.request("GET", "/api/state")
        assert status == 401 and body["error"] == "login"
        async with client.session.post(
            world.url + "/api/login", json={"password": PASSWORD}, headers={"Origin": world.url}
        ) as response:
            assert response.status == 200
            cookie = response.headers["Set-Cookie"]
            token = (await response.json())["csrf"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        client.csrf = token
        status, body = await client.request("GET", "/api/state")
        assert status == 200 and body["player"] == "idle", body
        status, body = await client.request("GET", "/api/session")
        assert status == 200 and body["csrf"] == token
        status, _ = await client.request("POST", "/api/logout", {})
        assert status == 200
        status, body = await client.request("GET", "/api/state")
        assert status == 401, body
    finally:
        await client.close()


async def test_twenty_wrong_passwords_are_rate_limited_and_the_service_goes_on(world, page) -> None:
    stranger = Page(world.url)
    codes = []
    try:
        for _ in range(20):
            status, body = await asyncio.wait_for(
                stranger.request("POST", "/api/login", {"password": "guess-guess"}), T
            )
            codes.append((status, body["error"]))
        # even the right password waits now, from that address
        status, body = await stranger.request("POST", "/api/login", {"password": PASSWORD})
    finally:
        await stranger.close()
    assert codes[:5] == [(401, "wrong_password")] * 5, codes
    assert set(codes[5:]) == {(429, "rate_limited")}, codes
    assert status == 429 and "try again in" in body["message"], body
    # the household's page, logged in before, is unaffected
    status, body = await page.request("GET", "/api/state")
    assert status == 200
    dracula = await album_id(page, "Dracula")
    status, body = await page.request("POST", "/api/play", {"album_id": dracula})
    assert status == 200 and body["state"]["player"] == "playing", body


def test_the_limiter_forgets_after_its_window() -> None:
    now = [1000.0]
    limiter = auth.LoginLimiter(attempts=3, window=60, clock=lambda: now[0])
    for _ in range(3):
        assert limiter.wait("10.0.0.5") == 0
        limiter.failed("10.0.0.5")
    assert 59 < limiter.wait("10.0.0.5") <= 60
    assert limiter.wait("10.0.0.6") == 0  # another phone is not held up
    now[0] += 61
    assert limiter.wait("10.0.0.5") == 0


async def test_a_change_without_the_csrf_token_is_refused_and_changes_nothing(world, page) -> None:
    dracula = await album_id(page, "Dracula")
    for headers in ({}, {"X-CSRF-Token": "not-the-token"}):
        status, body = await page.request(
            "POST", "/api/play", {"album_id": dracula}, csrf=False, headers=headers
        )
        assert status == 403, body
        assert body["error"] == "csrf" and "CSRF" in body["message"]
    status, body = await page.request("DELETE", f"/api/albums/{dracula}", csrf=False)
    assert status == 403 and body["error"] == "csrf"
    assert world.runtime.player.state == "idle"
    assert "Dracula" in world.library_entries()
    status, body = await page.request("POST", "/api/play", {"album_id": dracula})
    assert status == 200, body  # with the token it goes


async def test_a_foreign_origin_or_host_is_refused(world, page) -> None:
    dracula = await album_id(page, "Dracula")
    status, body = await page.request(
        "POST", "/api/play", {"album_id": dracula}, headers={"Origin": "http://evil.example"}
    )
    assert status == 403 and body["error"] == "bad_origin", body
    assert "evil.example" in body["message"]
    status, body = await page.request("POST", "/api/login", {"password": PASSWORD},
                                      headers={"Origin": "null"})  # fmt: skip
    assert status == 403 and body["error"] == "bad_origin"
    # a name that is not this box's (DNS rebinding): refused even for reading
    status, body = await page.request("GET", "/api/state", headers={"Host": "evil.example"})
    assert status == 403 and body["error"] == "bad_host", body
    assert world.runtime.player.state == "idle"
    status, body = await page.request("GET", "/api/state")
    assert status == 200


def test_local_clients_and_this_box_names() -> None:
    for address in ("127.0.0.1", "::1", "192.168.1.20", "10.1.2.3", "172.16.0.9",
                    "fe80::1", "::ffff:192.168.0.7"):  # fmt: skip
        assert auth.local_client(address), address
    for address in ("8.8.8.8", "2001:4860:4860::8888", "::ffff:1.1.1.1", "", None, "junk"):
        assert not auth.local_client(address), address
    names = auth.own_names(["box.lan"])
    for host in ("192.168.1.20:8080", "[::1]:8080", "localhost:8080", "box.lan", "BOX.LAN:80"):
        assert auth.host_allowed(host, names), host
    for host in ("evil.example", "evil.example:8080", "", "box.lan:x"):
        assert not auth.host_allowed(host, names), host
    assert auth.origin_allowed(None, "192.168.1.20:8080")  # a script sends none
    assert auth.origin_allowed("http://192.168.1.20:8080", "192.168.1.20:8080")
    assert not auth.origin_allowed("http://192.168.1.20:8081", "192.168.1.20:8080")
    assert not auth.origin_allowed("null", "192.168.1.20:8080")


def test_the_password_is_stored_hashed_with_salt(tmp_path: Path) -> None:
    path = tmp_path / "state" / auth.PASSWORD_FILE
    auth.set_password(path, "a-long-secret")
    text = path.read_text()
    assert "a-long-secret" not in text
    record = json.loads(text)
    assert record["kdf"] == "scrypt" and record["salt"] and record["hash"]
    assert path.stat().st_mode & 0o777 == 0o600
    password = auth.Password(path)
    assert password.verify("a-long-secret") and not password.verify("a-long-secreT")
    sessions = auth.Sessions(password)
    cookie = sessions.make()
    assert sessions.valid(cookie) and sessions.csrf_ok(cookie, sessions.csrf(cookie))
    auth.set_password(path, "another-secret")  # a new password ends every session
    assert not sessions.valid(cookie)
    with pytest.raises(auth.PasswordError, match="at least 8"):
        auth.set_password(path, "short")
    assert password.verify("another-secret")


def test_web_password_cli_generates_once_and_changes_it(tmp_path: Path, capsys, monkeypatch):
    from web_fixtures import write_config

    from device import cli

    config = write_config(tmp_path)
    path = auth.password_path(tmp_path / "state")
    argv = ["--config", str(config), "web", "password"]
    assert cli.main([*argv, "--generate", "--if-unset"]) == 0
    out = capsys.readouterr().out
    generated = out.split("password ", 1)[1].split()[0]
    assert auth.Password(path).verify(generated), out
    assert "http://" in out and ":8080/" in out
    assert "sudo" not in out  # the password file is this user's own: no sudo to change it
    assert cli.main([*argv, "--generate", "--if-unset"]) == 0  # already set: kept
    assert "already set" in capsys.readouterr().out
    assert auth.Password(path).verify(generated)
    monkeypatch.setattr("sys.stdin", io.StringIO("a-household-secret\n"))
    assert cli.main(argv) == 0
    assert auth.Password(path).verify("a-household-secret")
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert cli.main(argv) == 1
    assert "at least 8" in capsys.readouterr().err
    assert auth.Password(path).verify("a-household-secret")
