"""``/media``: only files under the videos folder, with byte ranges (206 + Content-Range)."""

from __future__ import annotations

import os

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamspatial.cli.serve import build_app
from streamspatial.web.media import MediaError, parse_range
from streamspatial.web.server import ServerThread
from web_fixtures import make_study


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("media")
    _, videos = make_study(root)
    os.symlink(root / "secret.txt", videos / "link.mp4")  # a link pointing out of the folder
    app, _ = build_app(
        data=None, videos=videos, out=root / "out", mode="streaming", annotations=None
    )
    with ServerThread(app) as srv:
        yield srv, videos, root


@pytest.mark.parametrize(
    "path",
    [
        "/media/%2e%2e/secret.txt",
        "/media/..%2fsecret.txt",
        "/media/%2e%2e%2fbench.jsonl",
        "/media/link.mp4",
        "/media//etc/passwd",
        "/media/nope.mp4",
    ],
)
def test_files_outside_the_videos_folder_are_refused(served, path):
    srv, _, _ = served
    with httpx.Client() as client:
        # Send the path exactly as written: no client-side normalisation of the dots.
        req = client.build_request("GET", srv.url + "/")
        req.url = req.url.copy_with(raw_path=path.encode())
        r = client.send(req)
    assert r.status_code == 404
    assert b"not a video" not in r.content


def test_whole_file_and_ranges(served):
    srv, videos, _ = served
    blob = (videos / "a.mp4").read_bytes()
    size = len(blob)
    url = srv.url + "/media/a.mp4"
    whole = httpx.get(url)
    assert whole.status_code == 200
    assert whole.content == blob
    assert whole.headers["accept-ranges"] == "bytes"
    assert whole.headers["content-type"] == "video/mp4"

    part = httpx.get(url, headers={"Range": "bytes=10-99"})
    assert part.status_code == 206
    assert part.headers["content-range"] == f"bytes 10-99/{size}"
    assert part.content == blob[10:100]

    tail = httpx.get(url, headers={"Range": "bytes=-50"})
    assert tail.status_code == 206
    assert tail.headers["content-range"] == f"bytes {size - 50}-{size - 1}/{size}"
    assert tail.content == blob[-50:]

    open_end = httpx.get(url, headers={"Range": f"bytes={size - 7}-"})
    assert open_end.status_code == 206 and open_end.content == blob[-7:]

    past = httpx.get(url, headers={"Range": f"bytes={size}-"})
    assert past.status_code == 416
    assert past.headers["content-range"] == f"bytes */{size}"


def test_nested_video_is_served(served):
    srv, videos, _ = served
    (videos / "sub").mkdir(exist_ok=True)
    (videos / "sub" / "c.webm").write_bytes(b"0123456789")
    r = httpx.get(srv.url + "/media/sub/c.webm", headers={"Range": "bytes=2-4"})
    assert r.status_code == 206 and r.content == b"234"


@given(size=st.integers(1, 10_000), a=st.integers(0, 12_000), b=st.integers(0, 12_000))
def test_parse_range_stays_inside_the_file(size, a, b):
    try:
        start, end = parse_range(f"bytes={a}-{b}", size)
    except MediaError as exc:
        assert exc.status == 416
        assert a >= size or b < a
        return
    assert 0 <= start <= end < size
    assert start == a and end == min(b, size - 1)


def test_static_files_cannot_escape(served):
    srv, _, _ = served
    assert httpx.get(srv.url + "/static/watch.js").status_code == 200
    req = httpx.Request("GET", srv.url + "/")
    req.url = req.url.copy_with(raw_path=b"/static/..%2fapp.py")
    with httpx.Client() as client:
        assert client.send(req).status_code == 404


def test_page_routes(served):
    srv, _, _ = served
    for page in ("/", "/watch", "/annotate"):
        r = httpx.get(srv.url + page)
        assert r.status_code == 200 and "<!doctype html>" in r.text


@pytest.mark.parametrize(
    ("route", "title", "script"),
    [
        ("/", "streamspatial", "<script>"),
        ("/watch", "streamspatial · watch", '<script src="/static/watch.js">'),
        ("/annotate", "streamspatial · annotate", '<script src="/static/annotate.js">'),
    ],
)
def test_pages_are_whole_documents_in_the_shared_frame(served, route, title, script):
    """Each page is its own body in the one frame: its title, the stylesheet, its script, and
    the document closed once; a page body alone is not served as a static file."""
    srv, _, _ = served
    text = httpx.get(srv.url + route).text
    assert text.startswith('<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n')
    assert f"<title>{title}</title>" in text
    assert '<link rel="stylesheet" href="/static/style.css">' in text
    assert script in text.split("<body>\n", 1)[1]
    assert text.endswith("</script>\n</body>\n</html>\n") and text.count("</html>") == 1
    assert httpx.get(srv.url + "/static/watch.html").status_code == 404


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--videos", "{root}/nope"], "nope: videos folder not found"),
        (["--videos", "{root}/videos", "--mode", "replay"], "--mode 'replay': expected streaming"),
        (["--videos", "{root}/videos", "--data", "{root}/missing.jsonl"], "missing.jsonl: file"),
    ],
)
def test_serve_user_mistakes_are_one_line(tmp_path, capsys, args, message):
    from streamspatial.cli import main

    make_study(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(["serve", *(a.format(root=tmp_path) for a in args)])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and err[0].startswith("error: ")


def test_only_videos_are_served_never_ground_truth_or_annotations(served):
    """The videos folder of a simulator benchmark also holds each episode's ground truth."""
    srv, videos, _ = served
    (videos / "a.meta.json.gz").write_bytes(b"\x1f\x8b ground truth")
    (videos / "a.boxes3d.json").write_text("{}")
    for name in ("a.meta.json.gz", "a.boxes3d.json"):
        r = httpx.get(f"{srv.url}/media/{name}")
        assert r.status_code == 404 and b"ground truth" not in r.content


@pytest.mark.parametrize("host", ["evil.example", "attacker.test:80", "192.0.2.1"])
def test_requests_for_another_host_name_are_refused(served, host):
    """DNS rebinding: a page served as evil.example that resolves to 127.0.0.1 sends its own
    name in Host; only names this server is reached under are answered."""
    srv, _, _ = served
    r = httpx.get(srv.url + "/api/study", headers={"Host": host})
    assert r.status_code == 400
    ok = httpx.get(srv.url + "/api/study", headers={"Host": f"localhost:{srv.port}"})
    assert ok.status_code == 200


def test_request_bodies_over_the_limit_are_refused(served):
    from streamspatial.web.app import MAX_BODY_BYTES

    srv, _, _ = served
    big = b'{"name": "' + b"x" * (MAX_BODY_BYTES + 10) + b'"}'
    r = httpx.post(srv.url + "/api/annotations", content=big,
                   headers={"content-type": "application/json"})  # fmt: skip
    assert r.status_code == 413

    def chunks():  # no Content-Length: the limit holds for a streamed body too
        yield b'{"name": "'
        for _ in range(MAX_BODY_BYTES // 65536 + 2):
            yield b"x" * 65536
        yield b'"}'

    r = httpx.post(srv.url + "/api/annotations", content=chunks(),
                   headers={"content-type": "application/json"})  # fmt: skip
    assert r.status_code == 413
