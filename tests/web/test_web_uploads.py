"""Adding a book from the phone, and renaming or removing one: a good upload becomes an
album that plays at once; every bad one (a path in a name, 2 GB, a zip bomb, a file that
is not audio, too many files) is refused in words with nothing written and the service
answering as before."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from web_fixtures import album_id, chunked, form, raw_upload, served, zip_of


async def test_three_files_become_an_album_that_plays_at_once(world, page, mp3_bytes) -> None:
    files = [(f"Part {n}.mp3", mp3_bytes) for n in (1, 2, 3)]
    status, body = await page.request("POST", "/api/upload", data=form("Emma", files))
    assert status == 200, body
    assert body["album"]["title"] == "Emma" and body["album"]["episodes"] == 3, body
    assert "Emma added to the library, 3 episodes" == body["message"]
    assert world.library_entries() == ["Dracula", "Emma", "西游记"]  # no hidden leftovers
    folder = world.library / "Emma"
    assert sorted(p.name for p in folder.iterdir()) == ["Part 1.mp3", "Part 2.mp3", "Part 3.mp3"]
    assert (folder / "Part 2.mp3").read_bytes() == mp3_bytes
    assert folder.stat().st_mode & 0o777 == 0o755
    status, body = await page.request("POST", "/api/play", {"album_id": body["album"]["id"],
                                                            "episode": 2})  # fmt: skip
    assert status == 200, body
    now = body["state"]["now"]
    assert (now["title"], now["episode"], now["state"]) == ("Emma", 2, "playing"), now


async def test_a_zip_of_a_folder_is_an_album_named_by_it(world, page, mp3_bytes) -> None:
    archive = zip_of({
        "Jane Eyre/01.mp3": mp3_bytes, "Jane Eyre/02.mp3": mp3_bytes,
        "Jane Eyre/cover.jpg": b"\xff\xd8 not really", "__MACOSX/Jane Eyre/._01.mp3": b"junk",
        "Jane Eyre/.DS_Store": b"junk",
    }, compression=zipfile.ZIP_DEFLATED)  # fmt: skip
    status, body = await page.request("POST", "/api/upload", data=form("", [("book.zip", archive)]))
    assert status == 200, body
    assert body["album"]["title"] == "Jane Eyre" and body["album"]["episodes"] == 2
    assert "Jane Eyre/cover.jpg" in body["skipped"]
    assert sorted(p.name for p in (world.library / "Jane Eyre").iterdir()) == ["01.mp3", "02.mp3"]
    assert not list(world.library.glob("**/*.zip"))


BAD_NAMES = [
    ("../evil.mp3", "name_path"),
    ("..\\evil.mp3", "name_path"),
    ("/etc/evil.mp3", "name_path"),
    ("books/evil.mp3", "name_path"),
    (".hidden.mp3", "name_hidden"),
    ("x" * 250 + ".mp3", "name_bad"),
    ("notes.txt", "not_audio_type"),
]


@pytest.mark.parametrize(("name", "error"), BAD_NAMES)
async def test_a_bad_file_name_refuses_the_upload(world, page, mp3_bytes, name, error) -> None:
    before = world.library_entries()
    files = [("01.mp3", mp3_bytes), (name, mp3_bytes)]
    status, body = await page.request("POST", "/api/upload", data=form("Evil", files))
    assert status in (400, 415), body
    assert body["error"] == error, body
    assert world.library_entries() == before
    assert not (world.library.parent / "evil.mp3").exists()
    assert not list(world.library.parent.glob("**/evil*.mp3"))
    status, _ = await page.request("GET", "/api/state")
    assert status == 200


def test_names_are_cleaned_or_refused() -> None:
    from device.web.errors import WebError
    from device.web.uploads import clean_name

    assert clean_name("  第01集 猴王出世.mp3 ") == "第01集 猴王出世.mp3"
    assert clean_name("Cafe\u0301.mp3") == "Café.mp3"  # NFC, as the phone may send NFD
    for name, key in (("a/../b.mp3", "name_path"), ("C:\\x.mp3", "name_path"),
                      ("..", "name_path"), ("", "name_bad"), (".env", "name_hidden"),
                      ("bell\x07.mp3", "name_bad"), ("nul\x00.mp3", "name_bad"),
                      ("rtl\u202e3pm.exe", "name_bad")):  # fmt: skip
        with pytest.raises(WebError) as caught:
            clean_name(name)
        assert caught.value.key == key, name


@pytest.mark.parametrize("album", ["../Evil", "/tmp/Evil", ".Evil", "a/b"])
async def test_a_bad_album_name_is_refused(world, page, mp3_bytes, album) -> None:
    before = world.library_entries()
    status, body = await page.request("POST", "/api/upload",
                                      data=form(album, [("01.mp3", mp3_bytes)]))  # fmt: skip
    assert status == 400 and body["error"] in ("name_path", "name_hidden"), body
    assert world.library_entries() == before
    assert not (world.library.parent / "Evil").exists()


async def test_a_zip_with_a_path_out_of_the_folder_is_refused(world, page, mp3_bytes) -> None:
    before = world.library_entries()
    archive = zip_of({"Book/01.mp3": mp3_bytes, "../../evil.mp3": mp3_bytes})
    status, body = await page.request("POST", "/api/upload",
                                      data=form("Book", [("book.zip", archive)]))  # fmt: skip
    assert status == 400 and body["error"] == "name_path", body
    assert "../../evil.mp3" in body["message"]
    assert world.library_entries() == before
    assert not list(world.library.parent.parent.glob("evil.mp3"))


async def test_a_non_audio_file_named_mp3_is_refused(world, page, mp3_bytes) -> None:
    before = world.library_entries()
    files = [("01.mp3", mp3_bytes), ("02.mp3", b"<html>this is a web page, not audio</html>" * 50)]
    status, body = await page.request("POST", "/api/upload", data=form("Fake", files))
    assert status == 415 and body["error"] == "not_audio", body
    assert body["message"].startswith("1 of 2 files do not play"), body
    assert "02.mp3" in body["message"] and "upload-" not in body["message"]
    assert world.library_entries() == before


async def test_a_2_gb_content_length_is_refused_before_a_byte_is_read(world, page) -> None:
    before = world.library_entries()
    status, body = await raw_upload(
        world,
        page,
        {"Content-Type": "multipart/form-data; boundary=xx", "Content-Length": str(2 << 30)},
        [b"--xx\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.mp3\"\r\n\r\n",
         b"\0" * 65536],
    )  # fmt: skip
    assert status == 413 and body["error"] == "too_big", body
    assert "at most 1024 MB" in body["message"]
    assert world.library_entries() == before
    status, body = await page.request("GET", "/api/state")
    assert status == 200, body


async def test_a_stream_past_the_limit_is_cut_off_and_removed(tmp_path: Path, mp3_bytes) -> None:
    async with served(tmp_path, web="upload_max_mb = 1\n") as (world, page):
        before = world.library_entries()
        head = (b'--xx\r\nContent-Disposition: form-data; name="album"\r\n\r\nBig\r\n'
                b'--xx\r\nContent-Disposition: form-data; name="files"; filename="big.mp3"\r\n'
                b"Content-Type: audio/mpeg\r\n\r\n")  # fmt: skip
        parts = [head] + [mp3_bytes[:1] * 65536] * 48 + [b"\r\n--xx--\r\n"]  # 3 MB, no length
        status, body = await raw_upload(
            world,
            page,
            {"Content-Type": "multipart/form-data; boundary=xx", "Transfer-Encoding": "chunked"},
            chunked(parts),
        )
        assert status == 413 and body["error"] == "too_big", body
        assert "at most 1 MB" in body["message"]
        assert world.library_entries() == before
        status, body = await page.request("GET", "/api/state")
        assert status == 200


async def test_a_zip_bomb_is_refused_unopened(world, page) -> None:
    before = world.library_entries()
    bomb = zip_of({"Book/01.mp3": b"\0" * (200 << 20)}, compression=zipfile.ZIP_DEFLATED)
    assert len(bomb) < 1 << 20  # 200 MB of zeros in a few hundred KB
    status, body = await page.request("POST", "/api/upload", data=form("Bomb", [("b.zip", bomb)]))
    assert status == 413 and body["error"] == "zip_bomb", body
    assert "zip bomb" in body["message"]
    assert world.library_entries() == before


async def test_a_zip_whose_member_is_larger_than_declared_is_refused(world, page, mp3_bytes):
    before = world.library_entries()
    real = mp3_bytes * 4
    archive = bytearray(zip_of({"Book/01.mp3": real}))
    declared = len(mp3_bytes).to_bytes(4, "little")
    size = len(real).to_bytes(4, "little")
    # the uncompressed size, in the local header and in the central directory, made smaller
    assert archive.count(size) == 4  # both sizes of both headers (stored: compressed = real)
    at = archive.find(b"PK\x01\x02")
    archive[at + 24 : at + 28] = declared
    archive[26:30] = declared if archive[22:26] == size else archive[26:30]
    archive[22:26] = declared
    status, body = await page.request("POST", "/api/upload",
                                      data=form("Liar", [("l.zip", bytes(archive))]))  # fmt: skip
    assert status in (400, 413) and body["error"] in ("bad_zip", "zip_lies"), body
    assert world.library_entries() == before


async def test_too_many_files_are_refused(tmp_path: Path, mp3_bytes) -> None:
    async with served(tmp_path, web="upload_max_files = 2\n") as (world, page):
        before = world.library_entries()
        files = [(f"{n}.mp3", mp3_bytes) for n in (1, 2, 3)]
        status, body = await page.request("POST", "/api/upload", data=form("Many", files))
        assert status == 413 and body["error"] == "too_many", body
        archive = zip_of({f"Many/{n}.mp3": mp3_bytes for n in (1, 2, 3)})
        status, body = await page.request("POST", "/api/upload",
                                          data=form("", [("m.zip", archive)]))  # fmt: skip
        assert status == 413 and body["error"] == "too_many", body
        assert world.library_entries() == before


async def test_an_album_of_that_name_is_not_overwritten(world, page, mp3_bytes) -> None:
    original = sorted((world.library / "Dracula").iterdir())
    status, body = await page.request("POST", "/api/upload",
                                      data=form("Dracula", [("9.mp3", mp3_bytes)]))  # fmt: skip
    assert status == 409 and body["error"] == "album_exists", body
    assert sorted((world.library / "Dracula").iterdir()) == original
    assert world.library_entries() == ["Dracula", "西游记"]


async def test_rename_keeps_the_bookmark_and_delete_removes_the_folder(world, page) -> None:
    dracula = await album_id(page, "Dracula")
    status, body = await page.request("POST", "/api/play", {"album_id": dracula, "episode": 2})
    assert status == 200, body
    status, body = await page.request("POST", f"/api/albums/{dracula}/rename", {"title": "德古拉"})
    assert status == 200 and body["message"] == "renamed to 德古拉", body
    assert await album_id(page, "德古拉") == dracula  # same folder, same id
    status, body = await page.request("GET", f"/api/albums/{dracula}")
    assert body["title"] == "德古拉" and body["bookmark"]["episode"] == 2, body
    assert (world.library / "Dracula" / "album.json").is_file()
    status, body = await page.request("DELETE", f"/api/albums/{dracula}")
    assert status == 200 and body["message"] == "德古拉 removed", body
    assert world.library_entries() == ["西游记"]
    assert world.runtime.player.state == "idle"  # it was playing: stopped first
    status, body = await page.request("GET", f"/api/albums/{dracula}")
    assert status == 404 and body["error"] == "no_album"
    status, body = await page.request("DELETE", "/api/albums/lib:0000000000")
    assert status == 404
