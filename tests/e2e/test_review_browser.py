"""`ragtest review` in headless Chromium, driven by keyboard through Selenium: accept, edit and reject questions,
label three answers, reload, come back in a new session, and find the labels file and the reviewed test set as
given. The judge's scores never reach the labelling page."""

from __future__ import annotations

import json
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from ragtest.review import Labelling, ReviewServer, resolve
from ragtest_core.datasets import read_jsonl
from tests.e2e.conftest import TwoVariants
from tests.e2e.review_helpers import chromium, copy_run, press, wait_for_path

REASON = "ambiguous: the passage gives two dates"
EDITED = "Who designed the Python programming language?"


def review_questions(driver, server: ReviewServer) -> None:  # type: ignore[no-untyped-def]
    driver.get(server.url)  # carries the session token once; the page drops it from the address
    wait_for_path(driver, "/")
    assert "token" not in driver.current_url
    driver.find_element(By.ID, "start-review").click()
    wait_for_path(driver, "/testset/0")
    press(driver, "a")  # accept
    wait_for_path(driver, "/testset/1")
    press(driver, "e")  # edit: the question field takes the focus, its text selected
    question = driver.find_element(By.ID, "edit-question")
    assert question == driver.switch_to.active_element
    press(driver, EDITED)
    reference = driver.find_element(By.ID, "edit-reference")
    reference.send_keys(Keys.END, " (edited)")
    press(driver, Keys.ENTER, ctrl=True)
    wait_for_path(driver, "/testset/2")
    press(driver, "r")  # reject, with a reason
    press(driver, REASON + Keys.ENTER)
    wait_for_path(driver, "/testset/3")
    driver.get(server.base + "/testset/1")  # the edit shows with its original kept
    assert driver.find_element(By.ID, "question").text == EDITED
    assert driver.find_element(By.ID, "original-question").text
    assert driver.find_element(By.ID, "status").text == "edited"


def label_answers(driver, server: ReviewServer, hidden: list[str]) -> None:  # type: ignore[no-untyped-def]
    driver.get(server.base + "/")
    name = driver.find_element(By.ID, "labeller")
    name.send_keys("ana", Keys.ENTER)
    wait_for_path(driver, "/label/ana/0")
    page = driver.page_source
    assert all(reason not in page for reason in hidden), "a judge's reason reached the labelling page"
    for position, keys in enumerate(("yy1", "pn", "np23")):
        press(driver, keys)
        press(driver, Keys.ENTER)
        wait_for_path(driver, f"/label/ana/{position + 1}")
    driver.refresh()  # a reload keeps the place
    wait_for_path(driver, "/label/ana/3")
    assert "3 labelled" in driver.find_element(By.CSS_SELECTOR, "header .progress").text


def test_review_and_label_by_keyboard(two_variants: TwoVariants, tmp_path: Path) -> None:
    run = copy_run(two_variants, tmp_path / "run")
    original = read_jsonl(run / "testset.jsonl")
    workspace = resolve(run)
    assert workspace.testset == run / "testset.jsonl" and workspace.rows == run / "scores.jsonl"
    labelling = Labelling(workspace.rows, workspace.labels, seed=0)
    first = [labelling.rows[i] for i in labelling.order[:3]]
    hidden = [str(v) for row in first for k, v in row.items() if k.endswith("_reason") and len(str(v)) > 25]
    assert hidden  # the judge gave reasons the page must not show
    with chromium() as driver:
        with ReviewServer(workspace, labelling) as server:
            review_questions(driver, server)
            label_answers(driver, server, hidden)
        # a new session (new token, new server) on the same folder resumes where ana stopped
        with ReviewServer(resolve(run), Labelling(workspace.rows, workspace.labels, seed=0)) as again:
            driver.get(again.url)
            driver.find_element(By.ID, "labeller").send_keys("ana", Keys.ENTER)
            wait_for_path(driver, "/label/ana/3")
            driver.get(again.base + "/testset")
            wait_for_path(driver, "/testset/3")  # the next question nobody has reviewed

    labels = [json.loads(line) for line in (run / "labels.jsonl").read_text().splitlines()]
    assert [row["sample_id"] for row in labels] == [labelling.keys[i] for i in labelling.order[:3]]
    assert [(row["faithfulness"], row["answer_correctness"]) for row in labels] == [(1, 1), (0.5, 0), (0, 0.5)]
    contexts = [len(labelling.rows[i]["contexts"]) for i in labelling.order[:3]]
    assert labels[0]["relevant_contexts"] == [True] + [False] * (contexts[0] - 1)
    assert labels[1]["relevant_contexts"] == [False] * contexts[1] and labels[1]["context_precision"] == 0.0
    assert labels[2]["relevant_contexts"][:3] == [False, True, True]
    assert all(row["labeller"] == "ana" and row["selection"] == "random" and row["time"] for row in labels)
    assert not any(key.endswith("_reason") for row in labels for key in row)

    reviewed = read_jsonl(run / "testset.reviewed.jsonl")
    assert len(reviewed) == len(original) - 1  # the rejected question is gone
    assert [row["sample_id"] for row in reviewed] == [r["sample_id"] for i, r in enumerate(original) if i != 2]
    assert reviewed[0]["review_status"] == "accepted"
    assert reviewed[1]["review_status"] == "edited" and reviewed[1]["question"] == EDITED
    assert reviewed[1]["original_question"] == original[1]["question"]
    assert reviewed[1]["ground_truth"] == original[1]["ground_truth"] + " (edited)"
    assert reviewed[1]["original_ground_truth"] == original[1]["ground_truth"]
    assert {row["review_status"] for row in reviewed[2:]} == {"pending"}
    decisions = read_jsonl(run / "testset.review.jsonl")
    assert [d["decision"] for d in decisions] == ["accepted", "edited", "rejected"]
    assert decisions[2]["reason"] == REASON
    assert read_jsonl(run / "testset.jsonl") == original  # the generated test set itself is never changed
