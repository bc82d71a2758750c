"""The review server over real HTTP on 127.0.0.1: who it refuses (no session, another Host, another site, a write
without the page's token), what a labeller is shown (never the judge's scores), the sampling orders, two labellers
and resuming, and the reviewed test set's rules."""

from __future__ import annotations

import http.client
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evaluation.label_agreement import label_agreement
from ragtest.review import Labelling, ReviewServer, TestsetReview, resolve
from ragtest.review.labelling import least_sure_order, stratified_order
from ragtest_core.datasets import read_dataset, read_jsonl, write_dataset
from ragtest_core.errors import RagtestError
from ragtest_core.labels import read_labels


def make_run(folder: Path, rows: int = 12) -> Path:
    folder.mkdir()
    testset = [
        {
            "sample_id": f"s{i:02d}",
            "question": f"What is fact {i}?",
            "ground_truth": f"Fact {i} is <b>bold</b> & true.",
            "reference_contexts": [f"Context of fact {i}."],
            "reference_context_ids": [f"c{i}"],
            "question_type": "simple" if i % 3 else "multi_context",
            "source": "Doc",
        }
        for i in range(rows)
    ]
    write_dataset(testset, folder / "testset.jsonl")
    scored = [
        {
            **row,
            "answer": f"Fact {i} is true.",
            "contexts": [f"Context of fact {i}.", "Noise."],
            "faithfulness": (i % 5) / 4,
            "faithfulness_reason": f"SECRET-JUDGE-REASON-{i}",
        }
        for i, row in enumerate(testset)
    ]
    write_dataset(scored, folder / "scores.jsonl")
    return folder


class Client:
    """Plain HTTP to the server, with or without the session cookie and the page's token."""

    def __init__(self, server: ReviewServer) -> None:
        self.server = server
        self.cookie = ""

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        connection = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=10)
        sent = {"Host": f"127.0.0.1:{self.server.port}", **(headers or {})}
        if self.cookie:
            sent["Cookie"] = self.cookie
        data = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        response.text = response.read().decode()  # type: ignore[attr-defined]
        connection.close()
        return response

    def login(self) -> None:
        response = self.request("GET", f"/?token={self.server.token}")
        assert response.status == 303 and response.getheader("location") == "/"
        cookie = response.getheader("set-cookie")
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        self.cookie = cookie.split(";")[0]

    def post(self, path: str, body: dict[str, Any], token: str | None = None) -> Any:
        headers = {"Content-Type": "application/json", "X-Ragtest-Token": token or self.server.token}
        return self.request("POST", path, body, headers)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ReviewServer, Client, Path]]:
    run = make_run(tmp_path / "run")
    workspace = resolve(run)
    with ReviewServer(workspace, Labelling(workspace.rows, workspace.labels, seed=3)) as server:
        yield server, Client(server), run


def test_refuses_what_is_not_this_session(served: tuple[ReviewServer, Client, Path]) -> None:
    server, client, _ = served
    assert server.url.startswith("http://127.0.0.1:") and server.socket.getsockname()[0] == "127.0.0.1"
    assert client.request("GET", "/").status == 403  # no session
    assert client.request("GET", "/?token=wrong").status == 403
    client.login()
    page = client.request("GET", "/")
    assert page.status == 200 and "Review the test set" in page.text
    policy = page.getheader("content-security-policy")
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert page.getheader("x-frame-options") == "DENY"
    assert client.request("GET", "/", headers={"Host": f"evil.example:{server.port}"}).status == 403  # rebinding
    assert client.request("GET", "/", headers={"Sec-Fetch-Site": "cross-site"}).status == 403
    body = {"key": "s00", "decision": "accepted"}
    hostile = client.request(
        "POST",
        "/api/testset/0",
        body,
        {"Origin": "http://evil.example", "Content-Type": "application/json", "X-Ragtest-Token": server.token},
    )
    assert hostile.status == 403
    assert client.post("/api/testset/0", body, token="forged").status == 403
    form = client.request("POST", "/api/testset/0", body, {"Content-Type": "text/plain"})
    assert form.status == 403  # a plain form post (no preflight) never carries the token header
    assert client.post("/api/testset/0", body).status == 200
    assert client.request("GET", "/static/review.js").status == 200


def test_labelling_hides_the_judge_and_saves_as_given(served: tuple[ReviewServer, Client, Path]) -> None:
    server, client, run = served
    client.login()
    start = client.request("GET", "/label?labeller=ana")
    assert start.status == 303 and start.getheader("location") == "/label/ana/0"
    page = client.request("GET", "/label/ana/0").text
    assert "SECRET-JUDGE-REASON" not in page and "faithfulness_reason" not in page
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; true" in page  # escaped, never markup
    labelling = server.app.labelling
    assert labelling is not None
    key = labelling.keys[labelling.order[0]]
    saved = client.post("/api/label/0", {"key": key, "labeller": "ana", "faithfulness": "partly",
                                         "answer_correctness": "yes", "relevant_contexts": [True, False]})  # fmt: skip
    assert saved.status == 200 and json.loads(saved.text)["next"] == "/label/ana/1"
    bad = client.post("/api/label/1", {"key": "wrong", "labeller": "ana", "faithfulness": "yes"})
    assert bad.status == 400 and "reload" in json.loads(bad.text)["error"]
    rows = read_labels(run / "labels.jsonl")
    assert rows[0]["faithfulness"] == 0.5 and rows[0]["answer_correctness"] == 1.0
    assert rows[0]["context_precision"] == pytest.approx(1.0) and rows[0]["selection"] == "random"


def test_two_labellers_walk_the_same_order_and_resume(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run")
    workspace = resolve(run)
    first = Labelling(workspace.rows, workspace.labels, seed=3)
    for who, count in (("ana", 4), ("ben", 2)):
        for position in range(count):
            key = first.keys[first.order[position]]
            first.save(position, who, {"key": key, "faithfulness": "yes", "answer_correctness": "no"})
    again = Labelling(workspace.rows, workspace.labels, seed=3)  # a new session reads the file back
    assert again.order == first.order
    assert again.next_position("ana") == 4 and again.next_position("ben") == 2 and again.next_position("cy") == 0
    assert again.progress("ana") == (4, 12)
    assert again.view(0, "ana")["given"]["faithfulness"] == 1.0
    rows = read_labels(workspace.labels)  # type: ignore[arg-type]
    assert Counter(row["labeller"] for row in rows) == {"ana": 4, "ben": 2}
    skipped = again.save(4, "ana", {"key": again.keys[again.order[4]], "skip": True})
    assert skipped["note"] == "skipped" and again.next_position("ana") == 5


def test_the_stated_orders() -> None:
    types = ["a"] * 60 + ["b"] * 30 + ["c"] * 10
    order = stratified_order(types, seed=1)
    assert sorted(order) == list(range(100)) and order == stratified_order(types, seed=1)
    assert order != stratified_order(types, seed=2)
    for size in (10, 20, 50):  # every prefix holds each type in its share of the run
        counts = Counter(types[i] for i in order[:size])
        assert abs(counts["a"] - 0.6 * size) <= 1 and abs(counts["b"] - 0.3 * size) <= 1
        assert abs(counts["c"] - 0.1 * size) <= 1
    rows: list[dict[str, Any]] = [{"faithfulness": v} for v in (0.95, 0.52, None, 0.1, 0.45)]
    assert least_sure_order(rows) == [1, 4, 3, 0, 2]
    rows[0]["faithfulness_spread"] = 1.0  # repeats that disagree: the least sure of all
    assert least_sure_order(rows)[0] == 0


def test_reviewed_test_set_rules(tmp_path: Path) -> None:
    run = make_run(tmp_path / "run", rows=4)
    review = TestsetReview(run / "testset.jsonl")
    with pytest.raises(RagtestError, match="reason"):
        review.decide(0, "rejected", reason="  ")
    assert review.decide(0, "edited", question="What is fact 0?")["decision"] == "accepted"  # nothing changed
    review.decide(1, "edited", question="  Which   fact is one? ", ground_truth="One.")
    review.decide(2, "rejected", reason="duplicate")
    review.decide(2, "accepted")  # a later decision replaces an earlier one
    review.decide(3, "rejected", reason="off topic")
    rows = read_jsonl(run / "testset.reviewed.jsonl")
    assert [r["sample_id"] for r in rows] == ["s00", "s01", "s02"]
    assert rows[1]["question"] == "Which fact is one?" and rows[1]["original_question"] == "What is fact 1?"
    assert TestsetReview(run / "testset.reviewed.jsonl").testset == run / "testset.jsonl"  # reviews the original
    assert TestsetReview(run / "testset.jsonl").counts() == {"accepted": 2, "edited": 1, "rejected": 1, "pending": 0}


def test_the_command_prints_its_url_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    import signal
    import socket
    import subprocess
    import sys

    run = make_run(tmp_path / "run")
    with socket.socket() as probe:  # a port that is free now, to ask for with --port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "ragtest.cli", "review", str(run), "--no-browser", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        printed = [process.stdout.readline() for _ in range(2)]
        url = printed[1].split()[1]
        assert url.startswith(f"http://127.0.0.1:{port}/?token=") and "labels" in printed[0]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", url.removeprefix(f"http://127.0.0.1:{port}"))
        assert connection.getresponse().status == 303  # the token opens a session
        connection.close()
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=20)
    assert code == 0 and "saved" in (process.stdout.read() if process.stdout else "")


def test_a_skipped_row_is_no_label(served: tuple[ReviewServer, Client, Path]) -> None:
    server, client, run = served
    client.login()
    labelling = server.app.labelling
    assert labelling is not None
    key = labelling.keys
    for position in (0, 1):
        body = {"key": key[labelling.order[position]], "labeller": "ana", "faithfulness": "yes"}
        assert client.post(f"/api/label/{position}", body).status == 200
    skip = client.post("/api/label/2", {"key": key[labelling.order[2]], "labeller": "ana", "skip": True})
    assert json.loads(skip.text)["next"] == "/label/ana/3"  # passed over, not offered again ...
    skip = client.post("/api/label/0", {"key": key[labelling.order[0]], "labeller": "ben", "skip": True})
    assert labelling.progress("ana") == (2, 12) and labelling.skipped("ana") == 1  # ... and not counted as labelled
    assert labelling.progress("ben") == (0, 12) and labelling.skipped("ben") == 1
    assert "2 labelled &middot; 1 skipped" in client.request("GET", "/label/ana/3").text
    index = client.request("GET", "/").text
    assert "ana</a>: 2 labelled, 1 skipped" in index and "ben</a>: 0 labelled, 1 skipped" in index
    rows = read_labels(run / "labels.jsonl")
    assert len(rows) == 4  # the file keeps the skips (resuming passes over them) ...
    report = label_agreement(read_dataset(run / "scores.jsonl"), rows)
    assert report.labellers == ["ana"] and report.metrics["faithfulness"].n_labelled == 2  # ... but no labels


def test_the_page_title_names_a_relative_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import signal
    import subprocess
    import sys

    run = make_run(tmp_path / "v1")
    monkeypatch.chdir(run)
    assert resolve(".").folder_name == "v1" and resolve("scores.jsonl").folder_name == "v1"
    assert resolve(Path("..") / "v1").folder_name == "v1"
    command = [sys.executable, "-m", "ragtest.cli", "review", ".", "--no-browser"]  # as a user types it
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=run)
    try:
        assert process.stdout is not None
        url = [process.stdout.readline() for _ in range(2)][1].split()[1]
        port = int(url.split(":")[2].split("/")[0])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", url.split(str(port), 1)[1])
        cookie = connection.getresponse().getheader("set-cookie") or ""
        connection.close()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/", headers={"Cookie": cookie.split(";")[0], "Host": f"127.0.0.1:{port}"})
        page = connection.getresponse().read().decode()
        connection.close()
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=20)
    assert "<h1>Review v1</h1>" in page and "Review .<" not in page
